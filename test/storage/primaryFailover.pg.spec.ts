import type { Commit, CommitResult, FeedChange, QueueSignal } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { Cause, Effect, Exit, Scope, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PgCluster, type PgServer, startPgCluster, waitFor } from "../support/pgCluster.js"

// PgStorage over a real primary and a synchronous streaming standby (PostgreSQL 15, pgCluster.ts),
// both named in one URL (issue 30, items 1 and 3): it writes to the primary only, and through a
// failover (SIGKILL of the primary, pg_ctl promote of the standby) it fails fast meanwhile, serves
// again on the new primary without a restart, loses no acknowledged commit and applies none twice,
// and its listeners listen again. A server that comes back as a standby is never written to.
//
// The servers' roles move from test to test (node1 is primary, then node2, then node1 again), so
// the tests run in order on one cluster.

let cluster: PgCluster
let database: string
const scopes: Array<Scope.Closeable> = []

beforeAll(async () => {
  cluster = await startPgCluster({ synchronous: true })
  database = await cluster.createDatabase(cluster.primary)
}, 120_000)

afterAll(async () => {
  for (const scope of scopes.splice(0).reverse()) await Effect.runPromise(Scope.close(scope, Exit.void))
  await cluster?.stop()
}, 60_000)

/** The URL naming `servers` in this order, as libpq writes several hosts. */
const urlOf = (...servers: ReadonlyArray<PgServer>) =>
  `postgres://postgres@${servers.map((s) => `127.0.0.1:${s.port}`).join(",")}/${database}?target_session_attrs=read-write`

const open = async (url: string) => {
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  return Effect.runPromise(Scope.provide(PgStorage.makeWithQueue({ url, listenHeartbeat: "1 second" }), scope))
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromiseExit(effect)

let n = 0
const create = (workspaceId: string): Commit => {
  const id = `con_fo_${++n}`
  return {
    streams: [
      {
        streamId: id,
        expectedVersion: 0,
        events: [{ type: "contact.created", data: { n }, metadata: { workspaceId, eventId: `evt_${id}`, requestId: null, actor: null } }]
      }
    ],
    documents: []
  }
}

/** The connections dealstream holds on a server (its pool's and its listeners'), by application name. */
const dealstreamConnections = async (server: PgServer) =>
  (
    await cluster.query<{ name: string }>(
      server,
      "SELECT application_name AS name FROM pg_stat_activity WHERE application_name LIKE 'dealstream%' AND datname = $1",
      [database]
    )
  ).map((row) => row.name)

/** Every event id in the log of the server, in log order. */
const eventIds = async (server: PgServer) =>
  (await cluster.query<{ id: string }>(server, "SELECT metadata ->> 'eventId' AS id FROM ds_events ORDER BY sequence", [], database)).map(
    (row) => row.id
  )

/** Collects a stream's elements while the scope lasts. */
const collect = <A>(stream: Stream.Stream<A, unknown>): Array<A> => {
  const seen: Array<A> = []
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  // Started again should it fail (its own retries used up), as the engine's followers do.
  Effect.runSync(
    Effect.forkIn(Stream.runForEach(stream, (a) => Effect.sync(() => seen.push(a))).pipe(Effect.ignore, Effect.forever), scope)
  )
  return seen
}

describe("PgStorage on a primary and a synchronous standby named in one URL", () => {
  it("writes to the primary even when the standby is listed first, and refuses a URL with no primary", async () => {
    const { primary, standby } = cluster
    const { storage } = await open(urlOf(standby, primary))
    const committed = await run(storage.commit(create("ws_fo_order")))
    expect(Exit.isSuccess(committed), String(committed)).toBe(true)
    // The standby was asked once at start, on a connection closed since; the pool is the primary's.
    await waitFor("no dealstream connection on the standby", async () =>
      (await dealstreamConnections(standby)).length === 0 ? true : undefined
    )
    expect((await dealstreamConnections(primary)).length).toBeGreaterThan(0)

    const twoStandbys = await Effect.runPromiseExit(Effect.scoped(PgStorage.make(`${urlOf(standby, standby)}`)))
    expect(Exit.isFailure(twoStandbys) ? Cause.squash(twoStandbys.cause) : null).toMatchObject({
      _tag: "DatabaseError",
      message: `cannot connect to PostgreSQL at 127.0.0.1:${standby.port},127.0.0.1:${standby.port}/${database}: no primary: 127.0.0.1:${standby.port} is in recovery; 127.0.0.1:${standby.port} is in recovery`
    })
  }, 60_000)

  it("follows a failover under 16 writers: every acknowledged commit once, served again, listening again", async () => {
    const { primary: old, standby: next } = cluster
    const url = urlOf(old, next)
    const { queue, storage } = await open(url)
    const ws = "ws_fo_load"
    const feed = collect<FeedChange>(storage.feedChanges)
    const signals = collect<QueueSignal>(queue.signals)
    await waitFor("the feed's listener", async () => {
      await run(storage.commit(create(ws)))
      return feed.length > 0 ? true : undefined
    })
    // The queue's listener too: one that first listens after the failover has nothing to resume.
    await waitFor("the queue's listener", async () => {
      await run(queue.signal({ _tag: "WebhookDeleted", webhookId: "wh_fo_before" }))
      return signals.length > 0 ? true : undefined
    })

    // Each writer commits new streams one after another; a commit that got no answer (503) is sent
    // again as it was until it is answered. A retry refused as a version conflict was applied by an
    // attempt whose answer was lost: its event is in the log.
    type Outcome = {
      readonly eventId: string
      readonly at: number
      readonly attempts: number
      readonly applied: "answered" | "by an earlier attempt"
    }
    const outcomes: Array<Outcome> = []
    const unavailable: Array<{ readonly at: number; readonly message: string }> = []
    let stop = false
    const writer = async () => {
      while (!stop) {
        const commit = create(ws)
        const eventId = commit.streams[0]!.events[0]!.metadata.eventId
        for (let attempts = 1; ; attempts++) {
          const exit = await run(
            storage.commit(commit) as Effect.Effect<CommitResult, { readonly _tag: string; readonly message?: string }>
          )
          if (Exit.isSuccess(exit)) {
            outcomes.push({ eventId, at: performance.now(), attempts, applied: "answered" })
            break
          }
          const error = Cause.squash(exit.cause) as { readonly _tag?: string; readonly message?: string }
          if (error._tag === "VersionConflict" && attempts > 1) {
            outcomes.push({ eventId, at: performance.now(), attempts, applied: "by an earlier attempt" })
            break
          }
          if (error._tag !== "StorageUnavailable") throw new Error(`commit ${eventId}: ${String(Cause.pretty(exit.cause))}`)
          unavailable.push({ at: performance.now(), message: error.message ?? "" })
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
    }
    const writers = Array.from({ length: 16 }, writer)
    await waitFor("writes before the fault", async () => (outcomes.length >= 200 ? true : undefined))

    const killedAt = performance.now()
    await cluster.kill(old, "SIGKILL")
    const before = outcomes.length
    await cluster.promote(next)
    const promotedAt = performance.now()
    const firstAfter = await waitFor(
      "a commit answered after the promotion",
      async () => outcomes.find((o, i) => i >= before && o.at > promotedAt),
      20_000
    )
    await waitFor("every writer past the failover", async () =>
      outcomes.filter((o) => o.at > promotedAt).length >= 200 ? true : undefined
    )
    stop = true
    await Promise.all(writers)

    const gap = firstAfter.at - promotedAt
    console.info(
      `primaryFailover.pg.spec: ${outcomes.length} commits by 16 writers; SIGKILL → promoted ${Math.round(promotedAt - killedAt)} ms, ` +
        `promoted → first commit ${Math.round(gap)} ms, SIGKILL → first commit ${Math.round(firstAfter.at - killedAt)} ms; ` +
        `${unavailable.length} answers StorageUnavailable, ${outcomes.filter((o) => o.applied !== "answered").length} applied by an unanswered attempt`
    )
    expect(unavailable.every((u) => /^PostgreSQL is unavailable: /.test(u.message))).toBe(true)

    // Every acknowledged commit is in the new primary's log exactly once, and nothing else is.
    const logged = (await eventIds(next)).filter((id) => id.startsWith("evt_con_fo_"))
    const counted = new Map<string, number>()
    for (const id of logged) counted.set(id, (counted.get(id) ?? 0) + 1)
    expect([...counted.values()].filter((count) => count > 1)).toEqual([])
    for (const { eventId } of outcomes) expect(counted.get(eventId), eventId).toBe(1)

    // The listeners listen on the new primary: each says what it may have missed, then hears again.
    const feedMark = feed.length
    const signalMark = signals.length
    await waitFor("the feed's listener to say it may have missed something", async () =>
      feed.some((change) => change._tag === "Resumed") ? true : undefined
    )
    await waitFor("the feed heard on the new primary", async () => {
      await run(storage.commit(create(ws)))
      const after = feed.slice(feedMark)
      return after.some((change) => change._tag === "Appended") ? true : undefined
    })
    await waitFor("a queue signal heard on the new primary", async () => {
      await run(queue.signal({ _tag: "WebhookDeleted", webhookId: "wh_fo" }))
      return signals.slice(signalMark).some((s) => s._tag === "WebhookDeleted") ? true : undefined
    })
    expect(signals).toContainEqual({ _tag: "Scheduled" })
    expect(await dealstreamConnections(next)).toEqual(expect.arrayContaining(["dealstream", "dealstream-listen", "dealstream-listen-feed"]))

    // The old primary comes back as a standby of the new one: still listed first, never written to.
    await cluster.restartAsStandbyOf(old, next)
    const acknowledged = outcomes.length
    for (let i = 0; i < 50; i++) {
      const exit = await run(storage.commit(create(ws)))
      expect(Exit.isSuccess(exit), String(exit)).toBe(true)
    }
    const fresh = await open(url)
    for (let i = 0; i < 10; i++) expect(Exit.isSuccess(await run(fresh.storage.commit(create(ws))))).toBe(true)
    await waitFor("no dealstream connection on the old primary", async () =>
      (await dealstreamConnections(old)).length === 0 ? true : undefined
    )
    await cluster.caughtUp(old, next)
    expect((await eventIds(old)).length).toBe((await eventIds(next)).length)
    expect(acknowledged).toBeGreaterThan(400)
  }, 180_000)

  it("retires an idle pool whose server came back as a standby, and finds the primary", async () => {
    // node2 is the primary now, node1 its synchronous standby: a quiet storage on node2 (no
    // listeners, no statements) sees its connections die only when it next uses one.
    const [standby, primary] = [cluster.primary, cluster.standby]
    expect(await cluster.inRecovery(primary)).toBe(false)
    const { storage } = await open(urlOf(primary, standby))
    expect(Exit.isSuccess(await run(storage.commit(create("ws_fo_idle"))))).toBe(true)

    await cluster.kill(primary, "SIGKILL")
    await cluster.promote(standby)
    await cluster.restartAsStandbyOf(primary, standby)

    // The pool's next connection to its old server finds it in recovery: the pool is retired, no
    // write reaches that server, and the next primary serves.
    const outcomes: Array<string> = []
    await waitFor("a commit on the new primary", async () => {
      const exit = await run(storage.commit(create("ws_fo_idle")))
      if (Exit.isSuccess(exit)) return true
      const error = Cause.squash(exit.cause) as { readonly _tag?: string; readonly message?: string }
      outcomes.push(`${error._tag}: ${error.message}`)
      return undefined
    })
    console.info(`primaryFailover.pg.spec: an idle pool on a server back as a standby: ${outcomes.join("; ")}`)
    expect(
      outcomes.every((o) => o.startsWith("StorageUnavailable: PostgreSQL is unavailable: ")),
      outcomes.join("\n")
    ).toBe(true)
    await waitFor("no dealstream connection on the server in recovery", async () =>
      (await dealstreamConnections(primary)).length === 0 ? true : undefined
    )
    expect((await dealstreamConnections(standby)).length).toBeGreaterThan(0)
  }, 120_000)
})
