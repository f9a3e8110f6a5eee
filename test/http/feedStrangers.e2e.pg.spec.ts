import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { testDatabase } from "../support/pg.js"
import { hostFor } from "./client.js"

/**
 * A transaction held open for 10 s in another database of the same server (an analytics job, a
 * session idle in transaction) while a consumer long-polls a workspace's feed through a real host:
 * the consumer gets the contact's event while that transaction is still open. With the feed read
 * below the server's xmin, as before migration 0017, the answer came only after it ended.
 */
describe("a long-poll beside a transaction open in another database", { timeout: 60_000 }, () => {
  const host = hostFor("postgres")
  const call = (method: string, path: string, body?: unknown) =>
    Effect.promise(() => host.call(method, path, body === undefined ? {} : { body }))

  it.live("answers with the event while the other transaction is still open", () =>
    Effect.gen(function* () {
      const start = yield* call("GET", "/v1/events?limit=1000")
      expect(start.status).toBe(200)

      const elsewhere = yield* testDatabase
      const sql = yield* PgClient.make({ url: Redacted.make(elsewhere), transformJson: false, maxConnections: 1 }).pipe(
        Effect.provide(Reactivity.layer)
      )
      let ended = false
      const opened = yield* Deferred.make<void>()
      const stranger = yield* Effect.forkScoped(
        sql
          .withTransaction(
            Effect.gen(function* () {
              // As text: the driver reads rows in binary, and has no reader for xid8.
              yield* sql.unsafe(`SELECT pg_current_xact_id()::text`)
              yield* Deferred.succeed(opened, undefined)
              yield* sql.unsafe(`SELECT pg_sleep(10)`)
            })
          )
          .pipe(
            Effect.ensuring(
              Effect.sync(() => {
                ended = true
              })
            )
          )
      )
      yield* Deferred.await(opened)

      const poll = yield* Effect.forkScoped(call("GET", `/v1/events?after=${start.body.next_cursor}&wait=30`))
      const contact = yield* call("POST", "/v1/contacts", { email: "stranger.open@example.com" })
      expect(contact.status).toBe(201)
      const answer = yield* Fiber.join(poll)
      const stillOpen = !ended
      expect(answer.status).toBe(200)
      expect(answer.body.data.map((e: { type: string; data: { contact: { id: string } } }) => [e.type, e.data.contact.id])).toEqual([
        ["contact.created", contact.body.id]
      ])
      expect(stillOpen).toBe(true)
      expect(Exit.isSuccess(yield* Fiber.await(stranger))).toBe(true)
    }).pipe(Effect.scoped)
  )
})
