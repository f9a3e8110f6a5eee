import { assertModel, EVERY_KIND, standardInvariants, storedEqualsRebuild, workspaceCommands } from "@dealstream/core/testing"
import { describe, it } from "@effect/vitest"
import { onCitus, pgStorageLayer } from "../support/pg.js"
import { coverage } from "./rebuildEqualsStored.js"

describe("engine on PostgreSQL", () => {
  it("stores exactly what a rebuild from the log makes, after random commands", async () => {
    const seen = coverage()
    // One database for the file: each run has workspaces and keys of its own, and compares only
    // those (a rebuild rewrites every workspace's documents, earlier runs' included). The
    // invariants are checked after the last command of each run, as the database is slower.
    await assertModel({
      storage: pgStorageLayer,
      storagePerRun: false,
      workspaces: 2,
      commands: workspaceCommands({ workspaces: 2, maxLength: 40, weights: { eraseContact: 1 } }),
      // Fewer on Citus, where a commit costs several times one on a single server (docs/citus.md).
      numRuns: onCitus() ? 10 : 25,
      examples: [EVERY_KIND],
      invariants: [...standardInvariants, storedEqualsRebuild],
      checkAfter: "last step",
      afterRun: seen.add
    })
    seen.check()
  }, 110_000)
})
