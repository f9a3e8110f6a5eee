import {
  type ChangeFeedEvent,
  type ChangeFeedPosition,
  compareChangeFeedPositions,
  type NewEvent,
  type StorageService
} from "@dealstream/core"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { FEED_PORT_READS, feedPause } from "./feedPolling.js"

/**
 * The change feed's promise at the storage port (issue 17): two hosts (two storages on one
 * database, each with its own pool and group commit) and several writers committing at once, a
 * consumer following the feed with random page sizes and pauses while they write; at the end it
 * has seen every event of its workspace exactly once, each stream's in version order, and none of
 * another workspace's. On PostgreSQL, group commit puts several writers' commits in one
 * transaction and transactions commit out of sequence order: the cases a feed by sequence skips.
 * Run on one server (test/storage/changeFeed.properties.pg.spec.ts) and on Citus
 * (test/citus/changeFeed.properties.citus.spec.ts).
 */

export interface Scenario {
  /** Writers per host, and how many commits each makes (1 to 3 events each). */
  readonly writers: ReadonlyArray<ReadonlyArray<number>>
  readonly pages: ReadonlyArray<number>
  readonly pauses: ReadonlyArray<number>
}

export const scenario: fc.Arbitrary<Scenario> = fc.record({
  writers: fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 5, maxLength: 25 }), { minLength: 2, maxLength: 6 }),
  pages: fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 10 }),
  pauses: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 10 })
})

/**
 * When each of `transactions` committed, in milliseconds since the epoch (null when the server does
 * not know: track_commit_timestamp off); the report puts them on the follower's clock. Given by a
 * PostgreSQL run, so that a gap says whether the read that passed the missing events began after
 * their commit (the read should have seen them) or ended before it (the bound let the read pass a
 * commit still running).
 */
export type CommitTimes = (
  transactions: ReadonlyArray<string>
) => Effect.Effect<ReadonlyArray<{ readonly transaction: string; readonly at: number | null }>>

/** The wall clock in milliseconds since the epoch, with the fraction performance.now() gives. */
const clock = () => performance.timeOrigin + performance.now()

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

let run = 0

export const follow = (hosts: readonly [StorageService, StorageService], { pages, pauses, writers }: Scenario, commitTimes?: CommitTimes) =>
  Effect.gen(function* () {
    const tag = `${Date.now().toString(36)}_${run++}`
    const workspace = `ws_feed_${tag}`
    const other = `ws_other_${tag}`
    const event = (workspaceId: string, stream: string, version: number): NewEvent => ({
      type: "contact.updated",
      data: { stream, version },
      metadata: { workspaceId, eventId: `evt_${stream}_${version}`, requestId: null, actor: null }
    })
    // Times in the report are ms since the start, to the µs.
    const started = clock()
    const since = (at = clock()) => Math.round((at - started) * 1000) / 1000
    // Each acknowledged commit: when, which stream, its version then.
    const acknowledged: Array<{ readonly at: number; readonly stream: string; readonly version: number }> = []
    // Each writer owns a stream; every fourth writes to the other workspace.
    const writing = Effect.forEach(
      writers,
      (commits, w) =>
        Effect.gen(function* () {
          const host = hosts[w % 2]!
          const workspaceId = w % 4 === 3 ? other : workspace
          const stream = `con_${tag}_${w}`
          let version = 0
          for (const size of commits) {
            const events = Array.from({ length: size }, (_, i) => event(workspaceId, stream, version + i + 1))
            yield* host.commit({ streams: [{ streamId: stream, expectedVersion: version, events }], documents: [] })
            version += size
            acknowledged.push({ at: since(), stream, version })
          }
        }),
      { concurrency: "unbounded", discard: true }
    )
    const expected = writers.reduce((sum, commits, w) => sum + (w % 4 === 3 ? 0 : commits.reduce((a, b) => a + b, 0)), 0)

    const seen: Array<{ readonly stream: string; readonly version: number; readonly workspace: string; readonly id: string }> = []
    // Each read that returned events: when it began and ended, through which host, from where, and
    // the first and last position it gave. On a gap, the failure names the read that passed the
    // missing events and the commits acknowledged around it.
    const reads: Array<{
      readonly began: number
      readonly ended: number
      readonly host: number
      readonly from: string
      readonly first: string
      readonly last: ChangeFeedPosition
    }> = []
    const where = (position: ChangeFeedPosition | null) => (position === null ? "start" : `${position.transaction}/${position.sequence}`)
    let done = false
    const consuming = Effect.gen(function* () {
      let after: ChangeFeedPosition | null = null
      // Once the writers are done: reads in a row that found nothing.
      let idle = 0
      for (let i = 0; ; i++) {
        const finished = done
        const began = since()
        const { events: page }: { readonly events: ReadonlyArray<ChangeFeedEvent> } = yield* hosts[i % 2]!.readFeed({
          workspaceId: workspace,
          after,
          types: [],
          limit: pages[i % pages.length]!
        })
        if (page.length > 0)
          reads.push({
            began,
            ended: since(),
            host: i % 2,
            from: where(after),
            first: where(page[0]!.position),
            last: page.at(-1)!.position
          })
        for (const e of page) {
          seen.push({
            stream: String(e.data["stream"]),
            version: Number(e.data["version"]),
            workspace: e.metadata.workspaceId,
            id: e.metadata.eventId
          })
          after = e.position
        }
        if (!finished) {
          yield* sleep(pauses[i % pauses.length]!)
          continue
        }
        // The writers were done before this read. An empty page does not mean nothing is left: the
        // feed holds events back while older transactions run, other tests' on this server too. So
        // it ends once every event written has come and a read finds nothing more, or fails once
        // its reads are spent.
        if (page.length > 0) {
          idle = 0
          continue
        }
        if (seen.length >= expected) return
        if (++idle >= FEED_PORT_READS) {
          // Held back or passed over: a read from the start says which, and where the cursor stood.
          const all = yield* hosts[0].readFeed({ workspaceId: workspace, after: null, types: [], limit: 100_000 })
          const had = new Set(seen.map((e) => e.id))
          const missing = all.events.filter((e) => !had.has(e.metadata.eventId))
          const lowest = missing[0]?.position
          // The first read that went past a missing event, the two before it, and the commits of
          // the missing events' streams acknowledged up to then.
          const passing = lowest === undefined ? -1 : reads.findIndex((read) => compareChangeFeedPositions(read.last, lowest) > 0)
          const streams = new Set(missing.map((e) => String(e.data["stream"])))
          const passed = passing < 0 ? [] : reads.slice(Math.max(0, passing - 2), passing + 1)
          const around = passed.map((read) => ({ ...read, last: where(read.last) }))
          const until = passed.at(-1)?.ended ?? 0
          const transactions = [
            ...new Set([...missing.map((e) => e.position), ...passed.map((read) => read.last)].map((position) => position.transaction))
          ]
          const committed = (commitTimes === undefined ? [] : yield* commitTimes(transactions)).map(({ at, transaction }) => ({
            transaction,
            at: at === null ? null : since(at)
          }))
          return yield* Effect.die(
            new Error(
              `after the writers finished, ${idle} reads in a row found nothing: the feed gave ${seen.length} of the ${expected} events written; ` +
                `read from the start it gives ${all.events.length}, missing ${JSON.stringify(missing.map((e) => [e.metadata.eventId, e.position]))}, ` +
                `the cursor at ${JSON.stringify(after)}; the read that passed them and those before it ${JSON.stringify(around)}; ` +
                `their streams' commits acknowledged by then ${JSON.stringify(acknowledged.filter((a) => streams.has(a.stream) && a.at <= until + 50))}; ` +
                `transactions' commit times (on the reads' clock) ${JSON.stringify(committed)}`
            )
          )
        }
        yield* sleep(feedPause(idle))
      }
    })
    yield* Effect.all(
      [
        Effect.ensuring(
          writing,
          Effect.sync(() => {
            done = true
          })
        ),
        consuming
      ],
      { concurrency: 2 }
    )

    expect(seen.every((e) => e.workspace === workspace)).toBe(true)
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length)
    expect(seen.length).toBe(expected)
    const last = new Map<string, number>()
    for (const e of seen) {
      expect(e.version, `${e.stream} in version order`).toBe((last.get(e.stream) ?? 0) + 1)
      last.set(e.stream, e.version)
    }
  })
