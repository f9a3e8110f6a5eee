import { Effect, Result } from "effect"
import { type Aggregate, decodeEvents, isErased, isStreamOf, streamWorkspace } from "../../aggregate.js"
import type { StorageUnavailable } from "../../errors.js"
import type { DomainEvent, StoredEvent } from "../../storage/events.js"
import { readAggregateStream } from "../base/aggregateStream.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"

/**
 * Every event of a stream of this aggregate, decoded, with where each was recorded (the activity
 * feed shows them): none for another workspace's stream, another kind's id or a purged record.
 */
export const recordedEvents = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  streamId: string
): Effect.Effect<ReadonlyArray<{ readonly event: E; readonly recorded: StoredEvent }>, StorageUnavailable> =>
  !isStreamOf(aggregate, streamId)
    ? Effect.succeed([])
    : Effect.flatMap(readAggregateStream(deps.storage, aggregate, ctx, streamId), (stored) => {
        const first = stored[0]
        if (first === undefined || streamWorkspace(aggregate, first) !== ctx.workspaceId || isErased(stored)) return Effect.succeed([])
        const decoded = decodeEvents(aggregate, stored)
        return Result.isFailure(decoded)
          ? Effect.die(decoded.failure)
          : Effect.succeed(decoded.success.map((event, i) => ({ event, recorded: stored[i]! })))
      })
