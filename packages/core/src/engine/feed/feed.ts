import { Clock, Effect, Result, type Scope } from "effect"
import { NotFound, type StorageUnavailable, type ValidationError } from "../../errors.js"
import { decodeFeedCursor, encodeFeedCursor, feedEvent, isFeedEventType, parseFeedParams, storedAnnouncement } from "../../feed/index.js"
import type { JsonObject } from "../../json.js"
import type { ChangeFeedEvent, ChangeFeedPosition } from "../../storage/changeFeed.js"
import type { StoredEvent } from "../../storage/events.js"
import { announcedPayloads } from "../views/announcedPayloads.js"
import type { EngineDeps } from "../base/deps.js"
import type { FeedPage, ListParams, RequestContext } from "../contract/Engine.js"
import { makeFeedWaiters } from "./feedWaiters.js"
import { storableParams } from "../base/storable.js"
import { catalogs } from "../base/settings.js"

/** Where a feed read without a cursor starts: before every event. */
const START: ChangeFeedPosition = { transaction: "0", sequence: 0 }

/**
 * How long a waiting read sleeps before reading again without being told of a change: a change
 * told may not be readable at once (an older transaction still running holds the feed back, see
 * ChangeFeedPosition), and a notification may be lost. Doubling from the first to the last.
 */
const RECHECK_MILLIS = { first: 5, last: 250 } as const

/**
 * The change feed (GET /v1/events): a workspace's record events in commit order, each exactly as
 * a webhook delivery of it is POSTed, and one event by its id.
 */
export const makeFeed = (deps: EngineDeps, scope: Scope.Scope) => {
  const waiters = makeFeedWaiters(deps.storage, scope)

  /** The events as the feed shows them: the data stored with each, or made again for an event older than that. */
  const shown = (ctx: RequestContext, events: ReadonlyArray<StoredEvent>) =>
    Effect.gen(function* () {
      const told = events.map((event) => storedAnnouncement(event, deps.recordTypes))
      const untold = events.filter((_, i) => told[i] === null)
      const made =
        untold.length === 0 ? new Map<string, JsonObject>() : yield* announcedPayloads(deps, ctx, untold, yield* catalogs(deps, ctx))
      // An older event whose record cannot be folded any more shows what is left of it: its id.
      return events.map((event, i) => feedEvent(event, told[i] ?? made.get(event.metadata.eventId) ?? { id: event.streamId }))
    })

  const list = (ctx: RequestContext, raw: ListParams): Effect.Effect<FeedPage, ValidationError | StorageUnavailable> =>
    Effect.gen(function* () {
      const params = parseFeedParams(yield* storableParams(raw), deps.recordTypes)
      if (Result.isFailure(params)) return yield* params.failure
      const { limit, types, waitMillis } = params.success
      let after = START
      if (params.success.after !== null) {
        const decoded = decodeFeedCursor(params.success.after, ctx.workspaceId)
        if (Result.isFailure(decoded)) return yield* decoded.failure
        after = decoded.success
      }
      // Each read goes on from where the one before it got to: past what the types left out too.
      let from = after
      const read = Effect.map(
        Effect.suspend(() => deps.storage.readFeed({ workspaceId: ctx.workspaceId, after: from, types, limit })),
        (page) => {
          from = page.through ?? from
          return page.events
        }
      )
      const deadline = (yield* Clock.currentTimeMillis) + waitMillis
      let events: ReadonlyArray<ChangeFeedEvent> = yield* read
      let recheck: number = RECHECK_MILLIS.last
      while (events.length === 0) {
        const left = deadline - (yield* Clock.currentTimeMillis)
        if (left <= 0 || waiters.stopped()) break
        // Taken before the read it follows, so a change told in between still wakes this reader.
        const ticket = yield* waiters.ticket(ctx.workspaceId)
        events = yield* read
        if (events.length > 0) {
          yield* ticket.cancel
          break
        }
        const before = yield* Clock.currentTimeMillis
        yield* ticket.await(Math.min(left, recheck)).pipe(Effect.ensuring(ticket.cancel))
        const told = (yield* Clock.currentTimeMillis) - before < recheck
        // Told of a change that the next read may not see yet: read again soon, then less often.
        recheck = told ? RECHECK_MILLIS.first : Math.min(recheck * 2, RECHECK_MILLIS.last)
        events = yield* read
      }
      return { data: yield* shown(ctx, events), next_cursor: encodeFeedCursor(ctx.workspaceId, from) }
    })

  const get = (ctx: RequestContext, eventId: string): Effect.Effect<JsonObject, NotFound | ValidationError | StorageUnavailable> =>
    Effect.gen(function* () {
      const event = yield* deps.storage.readEvent(ctx.workspaceId, (yield* storableParams({ id: eventId })).id)
      if (event === null || !isFeedEventType(event.type, deps.recordTypes)) return yield* new NotFound({ resource: "event", id: eventId })
      return (yield* shown(ctx, [event]))[0]!
    })

  return { list, get, stopWaiting: waiters.stop }
}
