import { Effect } from "effect"

/*
 * Reading the change feed in a test while other tests write to the same PostgreSQL server.
 *
 * The feed hands out an event only once no transaction that could still commit an event before it
 * is running (ChangeFeedPosition): an event a test has just committed may stay out of sight for as
 * long as some other transaction holds it back. So a test never takes one read right after a write
 * for what the feed has: it reads again until what it expects is there, bounded by a number of
 * reads, and fails saying what it still missed. And "nothing was recorded" is never an empty read
 * (an event held back reads as nothing): the test commits a marker afterwards and requires the
 * marker to be the only new event, since every write acknowledged before the marker was written
 * comes before it in the feed (its transaction ended before the marker's began, so its id is lower).
 */

/** How long one read over the API may hold an empty page (`wait=`) before it is asked again. */
export const FEED_WAIT_SECONDS = 10

/** Reads in a row that may bring nothing new before a test gives up waiting (with `wait=`: 40 s). */
export const FEED_PATIENCE = 4

/**
 * Reads of the storage port in a row that may find nothing before a test gives up: the port has no
 * `wait`, so such reads pause as the engine's waiting reads do (see feedPause), about 45 s in all.
 */
export const FEED_PORT_READS = 180

/** The pause before the n-th read in a row that found nothing (1, 2, …): 5 ms doubling up to 250 ms. */
export const feedPause = (n: number) => Math.min(5 * 2 ** Math.max(0, n - 1), 250)

/**
 * Runs `read` until `done` holds for what it returns, pausing as feedPause says between reads, at
 * most FEED_PORT_READS times; then fails naming what it waited for and what the last read gave.
 */
export const readUntil = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: string): Effect.Effect<A, E | Error, R> =>
  Effect.gen(function* () {
    for (let n = 1; ; n++) {
      const a = yield* read
      if (done(a)) return a
      if (n >= FEED_PORT_READS) {
        return yield* Effect.fail(new Error(`waited for ${what} through ${n} reads of the feed; the last gave ${JSON.stringify(a)}`))
      }
      yield* Effect.sleep(feedPause(n))
    }
  })

/** A page of the feed as GET /v1/events (or the engine's events.list) answers it. */
export interface FeedPage<Event> {
  readonly data: ReadonlyArray<Event>
  readonly next_cursor: string
}

/** One read of a feed with these parameters (`after`, `limit`, `types`, `wait`), answered 200. */
export type FeedRead<Event> = (params: Readonly<Record<string, string>>) => Promise<FeedPage<Event>>

/**
 * Follows the feed from `after` (null: from its start) until `count` events have come, each read
 * holding an empty page up to FEED_WAIT_SECONDS; fails once FEED_PATIENCE reads in a row bring
 * nothing. Returns the events and the cursor of the last read. It stops at `count`: whether more
 * follow is the caller's to check.
 */
export const collectFeed = async <Event>(
  read: FeedRead<Event>,
  after: string | null,
  count: number,
  options: { readonly limit?: number; readonly types?: string } = {}
): Promise<{ readonly events: ReadonlyArray<Event>; readonly cursor: string }> => {
  const events: Array<Event> = []
  let cursor = after
  for (let idle = 0; ; ) {
    const page = await read({
      limit: String(options.limit ?? 100),
      wait: String(FEED_WAIT_SECONDS),
      ...(cursor === null ? {} : { after: cursor }),
      ...(options.types === undefined ? {} : { types: options.types })
    })
    events.push(...page.data)
    cursor = page.next_cursor
    if (events.length >= count) return { events, cursor }
    idle = page.data.length === 0 ? idle + 1 : 0
    if (idle >= FEED_PATIENCE) {
      throw new Error(
        `the feed gave ${events.length} of the ${count} events awaited${options.types === undefined ? "" : ` (types ${options.types})`}, ` +
          `then ${idle} reads waiting ${FEED_WAIT_SECONDS} s each brought nothing: ${JSON.stringify(events)}`
      )
    }
  }
}

/** A feed event of the API: only what the marker is told by. */
interface MarkedEvent {
  readonly type?: unknown
  readonly data?: { readonly contact?: { readonly id?: unknown } } | unknown
}

const isMarker = (id: string) => (event: MarkedEvent) =>
  event.type === "contact.created" && (event.data as { contact?: { id?: unknown } } | undefined)?.contact?.id === id

/**
 * What the feed recorded after `after` (null: from its start), up to a marker: `mark` writes a
 * contact and gives its id, and the feed is followed until that contact's creation. Returns the
 * events before the marker, and the cursor just past it, which is past every write acknowledged
 * before `mark` was called. Fails when anything follows the marker (nothing else may write to the
 * workspace meanwhile) or, like collectFeed, when the marker does not come.
 */
export const recordedUntilMarker = async <Event extends MarkedEvent>(
  read: FeedRead<Event>,
  after: string | null,
  mark: () => Promise<string>
): Promise<{ readonly events: ReadonlyArray<Event>; readonly cursor: string }> => {
  const marker = isMarker(await mark())
  const events: Array<Event> = []
  let cursor = after
  for (let idle = 0; !events.some(marker); ) {
    const page = await read({ limit: "1000", wait: String(FEED_WAIT_SECONDS), ...(cursor === null ? {} : { after: cursor }) })
    events.push(...page.data)
    cursor = page.next_cursor
    idle = page.data.length === 0 ? idle + 1 : 0
    if (idle >= FEED_PATIENCE) {
      throw new Error(
        `the marker never came: ${idle} reads waiting ${FEED_WAIT_SECONDS} s each brought nothing after ${JSON.stringify(events)}`
      )
    }
  }
  const at = events.findIndex(marker)
  if (at !== events.length - 1) throw new Error(`events followed the marker: ${JSON.stringify(events.slice(at + 1))}`)
  return { events: events.slice(0, at), cursor: cursor! }
}
