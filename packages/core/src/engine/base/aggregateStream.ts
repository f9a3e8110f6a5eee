import { Effect } from "effect"
import type { AnyAggregate } from "../../aggregate.js"
import type { StorageUnavailable } from "../../errors.js"
import type { StorageService } from "../../storage/Storage.js"
import type { StoredEvent } from "../../storage/events.js"

/**
 * A stream of this aggregate as read from `ctx`, its events after `after`: from the request's
 * workspace's log, so on a storage spread over servers by workspace (PostgreSQL on Citus) the read
 * goes to one server. An aggregate whose streams may have begun in another log (Aggregate.olderLog:
 * API keys made before keys had workspaces) is read there too when its own log lacks the stream's
 * next event: a second read of one workspace, never one across all of them.
 */
export const readAggregateStream = (
  storage: StorageService,
  aggregate: AnyAggregate,
  ctx: { readonly workspaceId: string },
  streamId: string,
  after = 0
): Effect.Effect<ReadonlyArray<StoredEvent>, StorageUnavailable> => {
  const own = storage.readStream(streamId, after, ctx.workspaceId)
  const older = aggregate.olderLog
  if (older === undefined || older === ctx.workspaceId) return own
  return Effect.flatMap(own, (events) =>
    events[0]?.streamVersion === after + 1
      ? Effect.succeed(events)
      : Effect.map(storage.readStream(streamId, after, older), (before) =>
          [...before, ...events].sort((a, b) => a.streamVersion - b.streamVersion)
        )
  )
}
