import { assertModel } from "@dealstream/core/testing"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { executeFigureStep, FIGURE_EXAMPLE, type FigureStep, figureSteps, figuresEqualTheFold } from "./pipelineFigures.js"

describe("pipeline figures on memory storage", () => {
  it("equal a fold of the history after every command of random sequences", async () => {
    await assertModel<FigureStep>({
      storage: MemoryStorage.layer,
      commands: figureSteps(40),
      execute: executeFigureStep,
      examples: [FIGURE_EXAMPLE],
      invariants: [figuresEqualTheFold],
      numRuns: 40
    })
  }, 120_000)
})
