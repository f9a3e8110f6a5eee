import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { assertFigures } from "./pipelineFigures.js"

describe("pipeline figures on memory storage", () => {
  it(
    "equal a fold of the history after every command of random sequences",
    () => assertFigures({ storage: MemoryStorage.layer, numRuns: 40, maxLength: 40 }),
    120_000
  )
})
