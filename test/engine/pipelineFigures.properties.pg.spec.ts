import { describe, it } from "@effect/vitest"
import { pgStorageLayer } from "../support/pg.js"
import { assertFigures } from "./pipelineFigures.js"

// The same property where the figures are SQL over the figure tables, their covering indexes and
// the totals their trigger keeps. One database for the file: each run has workspaces of its own.
describe("pipeline figures on PostgreSQL", () => {
  it(
    "equal a fold of the history after every command of random sequences",
    () => assertFigures({ storage: pgStorageLayer, storagePerRun: false, numRuns: 20, maxLength: 30 }),
    240_000
  )
})
