import { Effect, Result } from "effect"
import { type Aggregate, decodeEvents, foldProjection } from "../../aggregate.js"
import type { Projected } from "../../decider.js"
import type { CustomFieldDefinition } from "../../field/custom.js"
import type { JsonObject } from "../../json.js"
import type { DomainError, StorageUnavailable } from "../../errors.js"
import type { DocumentWrite } from "../../storage/documents.js"
import type { DomainEvent } from "../../storage/events.js"
import type { StreamAppend } from "../../storage/Storage.js"
import { readAggregateStream } from "../base/aggregateStream.js"
import { type EngineDeps, withMetadata } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { emptyState, type StreamState } from "../base/streamStates.js"

/** Where a command is decided: a stream's state (or a new stream's), in a workspace. */
export interface DecisionPoint<S> {
  readonly ctx: RequestContext
  readonly streamId: string
  readonly stream: StreamState<S>
  /** What the stream's documents depend on (see StreamRef); none by default. */
  readonly definitions?: ReadonlyArray<CustomFieldDefinition>
}

/** A stream that does not exist yet: its id was just made. */
export const newStream = <C, E extends DomainEvent, S>(
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  streamId: string
): DecisionPoint<S> => ({ ctx, streamId, stream: emptyState(aggregate) })

export interface Handled<E, S> {
  /** The decider's state and the record's document after the command. */
  readonly state: S
  readonly projected: Projected | null
  /** The events the command added (none when it changed nothing). */
  readonly fresh: ReadonlyArray<E>
  readonly version: number
  /** What each new event was announced with (Addition.payloads), by index; empty when none was. */
  readonly payloads: ReadonlyArray<JsonObject | null>
}

export const handledOf = <E, S>(
  { fresh, projected, state, version }: Decided<E, S>,
  payloads: ReadonlyArray<JsonObject | null> = []
): Handled<E, S> => ({
  state,
  projected,
  fresh,
  version,
  payloads
})

/** One stream's share of a commit: what the command decided, ready to store. */
export interface Decided<E, S> extends Omit<Handled<E, S>, "payloads"> {
  /** The new events with their metadata, valid only at the version they were decided on. */
  readonly append: StreamAppend
  /** The documents the stream projects to with them (none when nothing was decided). */
  readonly documents: ReadonlyArray<DocumentWrite>
}

/** The stream's events up to `version`, decoded: for documents that need every event (a purge's). */
const historyOf = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  streamId: string,
  version: number
) =>
  Effect.flatMap(readAggregateStream(deps.storage, aggregate, ctx, streamId), (stored) => {
    const decoded = decodeEvents(aggregate, stored.slice(0, version))
    return Result.isFailure(decoded) ? Effect.die(decoded.failure) : Effect.succeed(decoded.success)
  })

/**
 * The decide step of every write: the command against the state of the stream, the events with the
 * metadata they are stored with, and the documents they project to. The command handler commits it;
 * a write that changes a second stream in the same commit (a delivery scheduled or cancelled, a
 * workspace's default pipeline) adds it to its own.
 */
export const decide = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  on: DecisionPoint<S>,
  command: NoInfer<C>
): Effect.Effect<Decided<E, S>, DomainError | StorageUnavailable> =>
  Effect.gen(function* () {
    const { projected: before, state: current, version: from } = on.stream
    const decided = aggregate.decider.decide(command, current)
    if (Result.isFailure(decided)) return yield* decided.failure
    const fresh = decided.success
    const events = yield* withMetadata(deps, on.ctx, fresh)
    const version = from + fresh.length
    const stream = { workspaceId: on.ctx.workspaceId, id: on.streamId, definitions: on.definitions ?? [] }
    const all =
      fresh.length > 0 && aggregate.documentsNeedHistory?.(fresh) === true
        ? [...(yield* historyOf(deps, aggregate, on.ctx, on.streamId, from)), ...fresh]
        : undefined
    return {
      append: {
        streamId: on.streamId,
        expectedVersion: from,
        events,
        ...(aggregate.settings === true ? { settings: true } : {})
      },
      documents: fresh.length === 0 ? [] : aggregate.documents(stream, { before, fresh, version, ...(all === undefined ? {} : { all }) }),
      state: fresh.reduce(aggregate.decider.evolve, current),
      projected: aggregate.project === null ? null : foldProjection(aggregate.project, fresh, before),
      fresh,
      version
    }
  })
