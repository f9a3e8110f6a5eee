import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { Effect, Exit, Scope } from "effect"
import { describe, it } from "vitest"
import { testDatabase } from "../support/pg.js"
import { everyWorkspace } from "./consumeEveryWorkspace.js"

describe("engine.consume over every workspace, PostgreSQL, two engines on one database", () => {
  it("handles each workspace's events once, in order, shares the workspaces, hands them over and replays them", async () => {
    const database = Effect.runSync(Scope.make())
    const url = await Effect.runPromise(Scope.provide(testDatabase, database))
    const engines = [
      await createPromiseEngine(PgStorage.layer({ url, maxConnections: 4 })),
      await createPromiseEngine(PgStorage.layer({ url, maxConnections: 4 }))
    ] as const
    try {
      await everyWorkspace(engines, "pg")
    } finally {
      await Promise.all(engines.map((crm) => crm.dispose()))
      await Effect.runPromise(Scope.close(database, Exit.void))
    }
  }, 90_000)
})
