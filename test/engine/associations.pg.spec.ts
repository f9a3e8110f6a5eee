import { describe, it } from "@effect/vitest"
import { pgStorageLayer } from "../support/pg.js"
import { associationProperty } from "./associations.js"

describe("deals and contacts stay linked as the model says, on PostgreSQL", () => {
  // One database for the file: every run has a workspace of its own.
  it(
    "across creates, deletes, restores, purges and patches of contact_ids, every view agrees",
    () => associationProperty({ storage: pgStorageLayer, storagePerRun: false, numRuns: 40 }),
    120_000
  )
})
