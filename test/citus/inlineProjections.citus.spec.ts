import { createPromiseEngine, inlineProjection } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { citusDatabase } from "../support/citusDatabase.js"

// Issue 29: inline projections do not run on Citus (citusCommits.ts says why). An engine given one
// on a cluster is refused when it is built, naming the projection, before any commit is tried.

describe("inline projections on Citus", () => {
  it("are refused when the engine is built", async () => {
    const database = Effect.runSync(Scope.make())
    try {
      const url = await Effect.runPromise(Scope.provide(citusDatabase, database))
      const projection = inlineProjection({ name: "emails", project: (events) => events, postgres: () => ({ sql: "SELECT 1" }) })
      await expect(createPromiseEngine(PgStorage.layer({ url }), { inlineProjections: [projection] })).rejects.toThrow(
        "inline projections do not run on this storage (PostgreSQL on Citus): register emails"
      )
      // Without projections the same storage builds an engine that commits.
      const crm = await createPromiseEngine(PgStorage.layer({ url }))
      try {
        const made = await crm.contacts.create({ workspaceId: "ws_inline", requestId: null, actor: null }, { email: "a@example.com" })
        expect(made.data["email"]).toBe("a@example.com")
      } finally {
        await crm.dispose()
      }
    } finally {
      await Effect.runPromise(Scope.close(database, Exit.void))
    }
  }, 60_000)
})
