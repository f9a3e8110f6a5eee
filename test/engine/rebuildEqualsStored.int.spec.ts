import { assertModel, EVERY_KIND, standardInvariants, storedEqualsRebuild, workspaceCommands } from "@dealstream/core/testing"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { coverage } from "./rebuildEqualsStored.js"

describe("engine on memory storage", () => {
  it("stores exactly what a rebuild from the log makes, after random commands", async () => {
    const seen = coverage()
    // A storage of its own per run (the runner's default), so a shrunk counterexample replays alone.
    await assertModel({
      storage: MemoryStorage.layer,
      workspaces: 2,
      commands: workspaceCommands({ workspaces: 2, maxLength: 60, weights: { eraseContact: 1 } }),
      numRuns: 50,
      examples: [EVERY_KIND],
      invariants: [...standardInvariants, storedEqualsRebuild],
      afterRun: seen.add
    })
    seen.check()
  }, 60_000)
})
