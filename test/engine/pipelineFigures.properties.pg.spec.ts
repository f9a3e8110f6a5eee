import { assertModel } from "@dealstream/core/testing"
import { describe, it } from "@effect/vitest"
import { pgStorageLayer } from "../support/pg.js"
import { executeFigureStep, FIGURE_EXAMPLE, type FigureStep, figureSteps, figuresEqualTheFold } from "./pipelineFigures.js"

// The same property where the figures are SQL over the figure tables' covering indexes. One
// database for the file: each run has workspaces of its own.
describe("pipeline figures on PostgreSQL", () => {
  it("equal a fold of the history after every command of random sequences", async () => {
    await assertModel<FigureStep>({
      storage: pgStorageLayer,
      storagePerRun: false,
      commands: figureSteps(30),
      execute: executeFigureStep,
      examples: [FIGURE_EXAMPLE],
      invariants: [figuresEqualTheFold],
      numRuns: 20
    })
  }, 240_000)
})
