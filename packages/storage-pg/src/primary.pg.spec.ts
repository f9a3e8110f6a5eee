import type { Commit, FeedChange, StorageService } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { testDatabase } from "../../../test/support/pg.js"
import { startTcpProxy, type TcpProxy } from "../../../test/support/tcpProxy.js"
import { silencingProxy } from "../../../test/storage/silencingProxy.js"
import { withHosts } from "./hosts.js"
import * as PgStorage from "./PgStorage.js"

// Several hosts in one URL, on the run's one server reached at several addresses (proxies that
// refuse, reset or go silent on cue): the storage finds the primary, and when the address it
// writes through fails it finds the next one, failing fast meanwhile and serving again by itself.
// Standbys and promotions are test/storage/primaryFailover.pg.spec.ts's (a real primary and standby).

const ws = "ws_primary"
let n = 0
const create = (): Commit => {
  const id = `con_primary_${++n}`
  return {
    streams: [
      {
        streamId: id,
        expectedVersion: 0,
        events: [{ type: "contact.created", data: {}, metadata: { workspaceId: ws, eventId: `evt_${id}`, requestId: null, actor: null } }]
      }
    ],
    documents: []
  }
}

const proxyTo = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(() => startTcpProxy(Number(new URL(url).port || 5432), new URL(url).hostname)),
    (proxy) => Effect.promise(proxy.close)
  )

/** A commit of a new stream each time it runs. */
const commitNew = (storage: StorageService) => Effect.suspend(() => storage.commit(create()))

const address = (proxy: TcpProxy) => `127.0.0.1:${proxy.port}`

/** Polls `attempt` until it succeeds, at most `seconds`. */
const until = <A, E>(attempt: Effect.Effect<A, E>, seconds: number) =>
  Effect.suspend(() => {
    const deadline = Date.now() + seconds * 1000
    const loop: Effect.Effect<A, E> = Effect.catch(attempt, (error) =>
      Date.now() > deadline ? Effect.fail(error) : Effect.andThen(Effect.sleep("20 millis"), loop)
    )
    return loop
  })

describe("PgStorage with several hosts", () => {
  it.live("skips hosts that cannot be reached, and names each one when none is the primary", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const real = new URL(url)
      const storage = yield* PgStorage.make(withHosts(url, `127.0.0.1:1,${real.hostname}:${real.port || 5432}`))
      const { events } = yield* storage.commit(create())
      expect(events).toHaveLength(1)

      const none = yield* Effect.flip(Effect.scoped(PgStorage.make(withHosts(url, "127.0.0.1:1,127.0.0.1:2"))))
      expect(none).toMatchObject({
        _tag: "DatabaseError",
        message: `cannot connect to PostgreSQL at 127.0.0.1:1,127.0.0.1:2${real.pathname}: no primary: 127.0.0.1:1 connection refused; 127.0.0.1:2 connection refused`
      })
    }).pipe(Effect.scoped)
  )

  it.live(
    "follows the primary to the next host: unavailable at once meanwhile, then served again and heard from, never through the old one",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const [a, b] = [yield* proxyTo(url), yield* proxyTo(url)]
        const storage = yield* PgStorage.make({ url: withHosts(url, `${address(a)},${address(b)}`), listenHeartbeat: "1 second" })
        const heard: Array<FeedChange> = []
        yield* Effect.forkScoped(Stream.runForEach(storage.feedChanges, (change) => Effect.sync(() => heard.push(change))))
        // LISTEN starts on a connection of its own: commit until a commit is heard.
        yield* until(
          Effect.andThen(
            commitNew(storage),
            Effect.suspend(() => (heard.length > 0 ? Effect.void : Effect.fail("not heard")))
          ),
          10
        )
        expect(b.accepted()).toBe(0)

        // The first host goes away (its connections reset, new ones refused), and the second is not there yet.
        a.refuse(true)
        b.refuse(true)
        a.cutAll()
        const refused = yield* until(
          Effect.flip(commitNew(storage)).pipe(
            Effect.flatMap((error) => (/no primary/.test(error.message) ? Effect.succeed(error) : Effect.fail(error)))
          ),
          10
        )
        expect(refused._tag).toBe("StorageUnavailable")
        expect(refused.message).toMatch(/^PostgreSQL is unavailable: no primary: 127\.0\.0\.1:\d+ connection (refused|reset)/)
        // Refused by the search's state at once, not after a statement's deadline: its message says
        // there is no primary, where a timed-out statement's says it got no answer.
        const failing = yield* Effect.flip(storage.readStream("con_primary_1"))
        expect(failing._tag).toBe("StorageUnavailable")
        expect(failing.message).toMatch(/^PostgreSQL is unavailable: no primary: /)

        // The second host answers: served again without a restart, and the feed's listener is back.
        const heardBefore = heard.length
        b.refuse(false)
        yield* until(commitNew(storage), 10)
        yield* until(
          Effect.andThen(
            commitNew(storage),
            Effect.suspend(() => {
              const after = heard.slice(heardBefore)
              const resumed = after.findIndex((change) => change._tag === "Resumed")
              return resumed !== -1 && after.slice(resumed).some((change) => change._tag === "Appended")
                ? Effect.void
                : Effect.fail("not heard")
            })
          ),
          10
        )

        // The first host is back too, but nothing goes to it: its pool was retired and closed.
        a.refuse(false)
        const accepted = a.accepted()
        for (let i = 0; i < 20; i++) yield* commitNew(storage)
        yield* storage.readLog({ after: 0, limit: 100 })
        expect(a.open()).toBe(0)
        expect(a.accepted()).toBe(accepted)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "asks a host whose statements go unanswered whether it is still there, and moves on when it is not",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const silent = yield* silencingProxy(url)
        const real = new URL(url)
        const storage = yield* PgStorage.make({
          url: withHosts(url, `${new URL(silent.url).host},${real.hostname}:${real.port || 5432}`),
          statementTimeout: "1 second",
          connectTimeout: "1 second"
        })
        yield* storage.commit(create())
        silent.partition()
        const timedOut = yield* Effect.flip(storage.commit(create()))
        expect(timedOut.message).toBe("PostgreSQL is unavailable: no answer within 1s")
        // The silent host is asked on a connection of its own (which goes unanswered too), retired,
        // and the next one found.
        const started = performance.now()
        yield* until(commitNew(storage), 15)
        console.info(`primary.pg.spec: a silent primary left after ${Math.round(performance.now() - started)} ms`)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
