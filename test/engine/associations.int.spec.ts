import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { associationProperty } from "./associations.js"

describe("deals and contacts stay linked as the model says, on memory storage", () => {
  it(
    "across creates, deletes, restores, purges and patches of contact_ids, every view agrees",
    () => associationProperty({ storage: MemoryStorage.layer, numRuns: 250 }),
    60_000
  )
})
