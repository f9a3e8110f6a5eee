import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Reactivity from "effect/reactivity/Reactivity"
import { emptyDatabase, serverUrl, testDatabase } from "../../../test/support/pg.js"
import { functions } from "./functions/index.js"
import { migrate } from "./migrate.js"
import { migrations } from "./migrations/index.js"
import * as PgStorage from "./PgStorage.js"

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

describe("PgStorage.layer", () => {
  it.live("migrates once when several hosts start on a new database at the same time", () =>
    Effect.gen(function* () {
      const url = yield* emptyDatabase
      const client = PgClient.make({ url: Redacted.make(url), transformJson: false }).pipe(Effect.provide(Reactivity.layer))
      const clients = yield* Effect.all([client, client, client, client])
      const applied = yield* Effect.all(
        clients.map((sql) => migrate(sql)),
        { concurrency: "unbounded" }
      )
      // Exactly one host ran each migration and each stored function; the others waited on the lock
      // and found nothing to do.
      expect(applied.flatMap((a) => a.migrations).sort((a, b) => a - b)).toEqual(migrations.map((m) => m.id))
      expect(applied.flatMap((a) => a.functions).sort()).toEqual(functions.map((f) => f.name).sort())
      expect(yield* migrate(clients[0]!)).toEqual({ migrations: [], functions: [] })
      const rows = yield* clients[0]!.unsafe<{ readonly id: number }>("SELECT id FROM ds_migrations ORDER BY id")
      expect(rows.map((r) => r.id)).toEqual(migrations.map((m) => m.id))
      // and PgStorage starts on the migrated database
      yield* PgStorage.make(url)
    }).pipe(Effect.scoped)
  )

  it.live("fails with one line naming the database when it cannot connect", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(Effect.scoped(PgStorage.make("postgres://postgres@127.0.0.1:1/test")))
      expect(refused).toMatchObject({
        _tag: "DatabaseError",
        message: "cannot connect to PostgreSQL at 127.0.0.1:1/test: connection refused"
      })

      const missing = new URL(withDatabase(serverUrl(), "ds_no_such_database"))
      const absent = yield* Effect.flip(Effect.scoped(PgStorage.make(missing.toString())))
      expect(absent.message).toBe(
        `cannot connect to PostgreSQL at ${missing.hostname}:${missing.port || "5432"}/ds_no_such_database: database "ds_no_such_database" does not exist`
      )
      expect(absent.message).not.toContain("\n")
      if (missing.password !== "") expect(absent.message).not.toContain(missing.password)
    })
  )

  // Built on a TestClock, the pool's idle-connection timer ran once per 60 s the clock skipped, so an
  // embedder's test that set the time to 2026 never returned. The storage keeps real time for its
  // own machinery and still stamps commits with the caller's clock.
  it.effect(
    "can be built on a TestClock that then jumps decades, and stamps commits with that clock",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const storage = yield* PgStorage.make(url)
        yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
        const { events } = yield* storage.commit({
          streams: [
            {
              streamId: "con_clock",
              expectedVersion: 0,
              events: [
                { type: "x.one", data: {}, metadata: { workspaceId: "ws_clock", eventId: "evt_clock", requestId: null, actor: null } }
              ]
            }
          ],
          documents: []
        })
        expect(events[0]!.recordedAt).toBe("2026-01-01T00:00:00.000Z")
      }).pipe(Effect.scoped),
    60_000
  )
})
