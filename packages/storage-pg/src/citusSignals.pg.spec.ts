import { describe, expect, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { connect as client } from "../../../test/support/citusShards.js"
import { testDatabase } from "../../../test/support/pg.js"
import { makeSignals } from "./citusSignals.js"

// On Citus a batch's signals go to the coordinator after the commits are answered (citusSignals.ts):
// telling them must not wait for the NOTIFY, and every one told must still be heard.

describe("the signals of Citus batches", () => {
  it.live("are told without waiting for their NOTIFY, and all heard once it runs", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const listener = yield* client(url)
      const heard = new Set<string>()
      let all: () => void = () => {}
      const allHeard = new Promise<void>((resolve) => {
        all = resolve
      })
      listener.on("notification", (message) => {
        heard.add(message.payload ?? "")
        if (heard.size === 3) all()
      })
      yield* Effect.promise(() => listener.query("LISTEN ds_test_signals"))
      // The signals' one connection is kept busy: it waits for a lock another session holds.
      const holder = yield* client(url)
      yield* Effect.promise(() => holder.query("SELECT pg_advisory_lock(7301)"))
      const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
      const busy = yield* Effect.forkChild(sql.unsafe("SELECT pg_advisory_lock(7301), pg_advisory_unlock(7301)"))
      for (;;) {
        const { rows } = yield* Effect.promise(() =>
          holder.query("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 7301 AND NOT granted) AS waits")
        )
        if (rows[0].waits === true) break
        yield* Effect.sleep("10 millis")
      }
      const signals = yield* makeSignals(sql)
      yield* signals.tell([
        ["ds_test_signals", "a"],
        ["ds_test_signals", "b"]
      ])
      yield* signals.tell([
        ["ds_test_signals", "a"],
        ["ds_test_signals", "c"]
      ])
      expect(heard.size).toBe(0)
      yield* Effect.promise(() => holder.query("SELECT pg_advisory_unlock(7301)"))
      yield* Fiber.join(busy)
      yield* Effect.promise(() => allHeard)
      expect([...heard].sort()).toEqual(["a", "b", "c"])
    }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))
  )
})
