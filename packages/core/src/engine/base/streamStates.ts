import { Effect, Result } from "effect"
import { type Aggregate, decodeEvents, foldProjection, isErased, isStreamOf, streamWorkspace } from "../../aggregate.js"
import type { Projected } from "../../decider.js"
import type { StorageUnavailable } from "../../errors.js"
import type { DomainEvent } from "../../storage/events.js"
import { readAggregateStream } from "./aggregateStream.js"
import { BoundedCache } from "./boundedCache.js"
import type { RequestContext } from "../contract/Engine.js"
import type { StorageService } from "../../storage/Storage.js"

/** A stream as a command needs it: the decider's state and the record's document, as of a version. */
export interface StreamState<S> {
  /** -1 for a stream that is gone (erased by a purge, or named by another kind's id); 0 before its first event. */
  readonly version: number
  readonly state: S
  /** The record's document as the events left it (null for an aggregate without one). */
  readonly projected: Projected | null
  /** The `at` of its last event: an attempt is never recorded before it. */
  readonly lastAt: string | undefined
}

interface Kept {
  readonly workspaceId: string
  readonly stream: StreamState<unknown>
}

/**
 * The streams' states this host decided on last, by stream id. A kept state may be stale (another
 * host wrote since): it is only ever decided on with its version as the commit's expected version,
 * so a stale one ends in a version conflict and the retry reads what came since. At most 10,000
 * streams, each its state and document (a few KiB), so a few tens of MiB at most.
 */
export type StreamStates = BoundedCache<string, Kept>

export const makeStreamStates = (capacity = 10_000): StreamStates => new BoundedCache(capacity)

const startOf = <C, E extends DomainEvent, S>(aggregate: Aggregate<C, E, S>, version: number): StreamState<S> => ({
  version,
  state: aggregate.decider.initialState,
  projected: null,
  lastAt: undefined
})

/** A stream with no event yet (or another workspace's, which reads the same). */
export const emptyState = <C, E extends DomainEvent, S>(aggregate: Aggregate<C, E, S>) => startOf(aggregate, 0)

/**
 * Reads a stream of this aggregate as seen from one workspace: from `known` on, reading only the
 * events after its version, or from the start. A stream of another workspace reads as one without
 * events; an id of another kind, or a purged stream, as gone. A stored event that does not decode is
 * a defect.
 */
export const readState = <C, E extends DomainEvent, S>(
  storage: StorageService,
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  streamId: string,
  known?: StreamState<S>
): Effect.Effect<StreamState<S>, StorageUnavailable> =>
  !isStreamOf(aggregate, streamId)
    ? Effect.succeed(startOf(aggregate, -1))
    : Effect.flatMap(readAggregateStream(storage, aggregate, ctx, streamId, known?.version ?? 0), (stored) => {
        const first = stored[0]
        if (first === undefined) return Effect.succeed(known ?? emptyState(aggregate))
        if (known === undefined && streamWorkspace(aggregate, first) !== ctx.workspaceId) return Effect.succeed(emptyState(aggregate))
        // A purge's tombstone is among the events of its commit, so the events since `known` show it.
        if (isErased(stored)) return Effect.succeed(startOf(aggregate, -1))
        const decoded = decodeEvents(aggregate, stored)
        if (Result.isFailure(decoded)) return Effect.die(decoded.failure)
        const lastAt = stored[stored.length - 1]!.data["at"]
        return Effect.succeed({
          version: (known?.version ?? 0) + stored.length,
          state: decoded.success.reduce(aggregate.decider.evolve, known?.state ?? aggregate.decider.initialState),
          projected: aggregate.project === null ? null : foldProjection(aggregate.project, decoded.success, known?.projected ?? null),
          lastAt: typeof lastAt === "string" ? lastAt : known?.lastAt
        })
      })

/** Whether a host may keep this aggregate's states between commands (see Aggregate.redactedInPlace). */
const keepable = (aggregate: Aggregate<any, any, any>) => aggregate.redactedInPlace !== true

/**
 * The state a command decides on. With `trustKept`, a state this host kept is taken as it is (no
 * read: the commit checks its version); otherwise the stream is read, from the kept state on when
 * there is one. `verified` says whether the state was read from storage just now.
 */
export const loadState = <C, E extends DomainEvent, S>(
  storage: StorageService,
  states: StreamStates,
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  streamId: string,
  trustKept: boolean
): Effect.Effect<{ readonly stream: StreamState<S>; readonly verified: boolean }, StorageUnavailable> => {
  if (!isStreamOf(aggregate, streamId)) return Effect.succeed({ stream: startOf(aggregate, -1), verified: true })
  const kept = keepable(aggregate) ? states.get(streamId) : undefined
  // Stream ids are unique across workspaces: one kept for another workspace is no stream of this one.
  if (kept !== undefined && kept.workspaceId !== ctx.workspaceId) return Effect.succeed({ stream: emptyState(aggregate), verified: true })
  const known = kept?.stream as StreamState<S> | undefined
  if (known !== undefined && trustKept) return Effect.succeed({ stream: known, verified: false })
  return Effect.map(readState(storage, aggregate, ctx, streamId, known), (stream) => {
    keep(states, aggregate, ctx, streamId, stream)
    return { stream, verified: true }
  })
}

/** Keeps a stream's state as a command left it or a read found it (a stream with events only). */
export const keep = <C, E extends DomainEvent, S>(
  states: StreamStates,
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  streamId: string,
  stream: StreamState<S>
): void => {
  if (!keepable(aggregate)) return
  if (stream.version <= 0) {
    states.delete(streamId)
    return
  }
  // Never an older state over a newer one: a read served by a replica may find the stream as it
  // was before what this host already decided on.
  const kept = states.get(streamId)
  if (kept === undefined || kept.stream.version <= stream.version) states.set(streamId, { workspaceId: ctx.workspaceId, stream })
}
