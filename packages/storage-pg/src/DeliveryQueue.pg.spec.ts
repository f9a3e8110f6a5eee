import { DeliveryQueue, type DeliveryQueueService } from "@dealstream/core"
import { deliveryQueueContractSuite, OtherHost } from "@dealstream/core/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, Option, Redacted, Result, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { serverUrl, testDatabase } from "../../../test/support/pg.js"
import { silencingProxy } from "../../../test/storage/silencingProxy.js"
import * as PgStorage from "./PgStorage.js"
import { sendSignal } from "./queueSignals.js"

/** Two hosts on one fresh database: two pools, two listeners. */
const twoHosts = Layer.unwrap(
  Effect.map(testDatabase, (url) => {
    const options = { url, maxConnections: 5 }
    return Layer.merge(PgStorage.layer(options), Layer.effect(OtherHost, PgStorage.makeWithQueue(options)))
  })
)

deliveryQueueContractSuite("postgres", twoHosts)

const admin = (url: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), (sql) =>
      sql.unsafe<{ readonly pid: number }>(statement)
    )
  ).pipe(Effect.provide(Reactivity.layer), Effect.orDie)

/** Repeats `signal` until `fiber` is done: subscribers start listening asynchronously. */
const until = <A, E>(fiber: Fiber.Fiber<A, E>, send: Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const sender = yield* Effect.forkChild(Effect.forever(Effect.andThen(Effect.ignore(send), Effect.sleep("100 millis"))))
    const result = yield* Fiber.join(fiber).pipe(Effect.timeout("20 seconds"), Effect.result)
    yield* Fiber.interrupt(sender)
    return result
  })

/**
 * WebhookDeleted signals sent by a client of the test's own, beside the hosts' pools: through the
 * server, not by the queue under test (which tells its own subscribers without it).
 */
const deletedFrom = (url: string) =>
  Effect.map(
    PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer)),
    (direct) => (webhookId: string) => sendSignal(direct)({ _tag: "WebhookDeleted", webhookId })
  )

/** The connections the hosts listen on (their heartbeats run there too, so `query` may not say LISTEN). */
const listenBackends = (url: string) =>
  admin(url, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'dealstream-listen'`)

describe("PgStorage signals", () => {
  it.live(
    "listens again after the LISTEN connection is killed, and says so with a Scheduled",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const context = yield* Layer.build(PgStorage.layer({ url, listenHeartbeat: "200 millis" }))
        const queue = Context.get(context, DeliveryQueue)
        const deleted = yield* deletedFrom(url)
        // Until the kill only WebhookDeleted signals are sent, so a Scheduled is the listener's own.
        let killed = false
        const seen = { scheduled: false, after: false }
        const subscriber = yield* Effect.forkChild(
          Stream.runDrain(
            Stream.takeUntil(queue.signals, (s) => {
              if (killed && s._tag === "Scheduled") seen.scheduled = true
              if (s._tag === "WebhookDeleted" && s.webhookId === "wh_after") seen.after = true
              return seen.scheduled && seen.after
            })
          )
        )
        const ready = yield* Effect.forkChild(Stream.runHead(Stream.filter(queue.signals, (s) => s._tag === "WebhookDeleted")))
        yield* until(ready, deleted("wh_before"))
        // a few heartbeats in, so the LISTEN connection is an old one when it is killed
        yield* Effect.sleep("1 second")
        const before = yield* listenBackends(url)
        expect(before.length).toBeGreaterThan(0)
        killed = true
        yield* admin(
          url,
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY('{${before.map((b) => b.pid).join(",")}}')`
        )
        const result = yield* until(subscriber, deleted("wh_after"))
        expect(Result.isSuccess(result)).toBe(true)
        expect(seen).toEqual({ scheduled: true, after: true })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "tells its own subscribers once, without the server, and other hosts through it",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const own = Context.get(yield* Layer.build(PgStorage.layer({ url })), DeliveryQueue)
        const other = Context.get(yield* Layer.build(PgStorage.layer({ url })), DeliveryQueue)
        const deleted = yield* deletedFrom(url)
        /** The WebhookDeleted ids a subscriber hears after "wh_ready", up to "wh_end". */
        const heard = (queue: DeliveryQueueService) =>
          Effect.gen(function* () {
            const ready = yield* Deferred.make<void>()
            const ids: Array<string> = []
            const fiber = yield* Effect.forkChild(
              Stream.runDrain(
                Stream.takeUntil(queue.signals, (s) => {
                  if (s._tag !== "WebhookDeleted") return false
                  if (s.webhookId === "wh_ready") Deferred.doneUnsafe(ready, Exit.void)
                  else ids.push(s.webhookId)
                  return s.webhookId === "wh_end"
                })
              )
            )
            return { ready: Deferred.await(ready), done: Effect.as(Fiber.join(fiber), ids) }
          })
        const ownHeard = yield* heard(own)
        const otherHeard = yield* heard(other)
        // Both listening (each subscription LISTENs on a connection of its own).
        yield* until(yield* Effect.forkChild(Effect.andThen(ownHeard.ready, otherHeard.ready)), deleted("wh_ready"))
        yield* own.signal({ _tag: "WebhookDeleted", webhookId: "wh_own" })
        // Sent after the NOTIFY of wh_own committed, so heard after its echo would have been.
        yield* deleted("wh_end")
        expect(yield* ownHeard.done).toEqual(["wh_own", "wh_end"])
        expect(yield* otherHeard.done).toEqual(["wh_own", "wh_end"])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "listens again after the LISTEN connection goes silent, and says so with a Scheduled",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const proxy = yield* silencingProxy(url)
        const context = yield* Layer.build(PgStorage.layer({ url: proxy.url, listenHeartbeat: "200 millis" }))
        const queue = Context.get(context, DeliveryQueue)
        // Signals go to the server directly: the host's own connections go silent too.
        const deleted = yield* deletedFrom(url)
        let silenced = false
        const seen = { scheduled: false, after: false }
        const subscriber = yield* Effect.forkChild(
          Stream.runDrain(
            Stream.takeUntil(queue.signals, (s) => {
              if (silenced && s._tag === "Scheduled") seen.scheduled = true
              if (s._tag === "WebhookDeleted" && s.webhookId === "wh_after") seen.after = true
              return seen.scheduled && seen.after
            })
          )
        )
        const ready = yield* Effect.forkChild(Stream.runHead(Stream.filter(queue.signals, (s) => s._tag === "WebhookDeleted")))
        yield* until(ready, deleted("wh_before"))
        // a few heartbeats in, so the LISTEN connection is an old one when it goes silent
        yield* Effect.sleep("1 second")
        silenced = true
        proxy.silence()
        const result = yield* until(subscriber, deleted("wh_after"))
        expect(Result.isSuccess(result)).toBe(true)
        expect(seen).toEqual({ scheduled: true, after: true })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "fails with StorageUnavailable when the database stays away",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const context = yield* Layer.build(PgStorage.layer({ url, listenHeartbeat: "200 millis", connectTimeout: "1 second" }))
        const queue = Context.get(context, DeliveryQueue)
        const subscriber = yield* Effect.forkChild(Stream.runDrain(queue.signals))
        // listening first, then the database goes
        yield* until(
          yield* Effect.forkChild(Stream.runHead(Stream.filter(queue.signals, (s) => s._tag === "Scheduled"))),
          queue.signal({ _tag: "Scheduled" })
        )
        const database = new URL(url).pathname.slice(1)
        yield* admin(serverUrl(), `DROP DATABASE ${database} WITH (FORCE)`)
        const exit = yield* Fiber.await(subscriber).pipe(Effect.timeout("30 seconds"))
        expect(exit._tag).toBe("Failure")
        if (exit._tag === "Failure") {
          const failure = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
          expect(failure).toMatchObject({ _tag: "StorageUnavailable" })
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
