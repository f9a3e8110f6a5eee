import { Effect, Option, Result } from "effect"
import { type Aggregate, decodeEvents, isErased, isStreamOf, stateOf } from "../aggregate.js"
import type { CustomFieldDefinition } from "../field/custom.js"
import { Conflict, type DomainError, NotFound, PreconditionFailed, type StorageUnavailable } from "../errors.js"
import type { QueueSignal } from "../storage/DeliveryQueue.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { DomainEvent, NewEvent, StoredEvent } from "../storage/events.js"
import type { StreamAppend } from "../storage/Storage.js"
import { type EngineDeps, nowIso, withMetadata } from "./deps.js"
import type { IfMatch, RequestContext, WriteError } from "./Engine.js"
import { claimWrite, IdempotencyClaim } from "./idempotencyClaim.js"

/** Version conflicts are retried this many times before the client gets a 409. */
const MAX_ATTEMPTS = 5

export interface LoadedStream<E> {
  /** The stream's events so far, decoded (only this workspace's; another workspace's stream reads as empty). */
  readonly history: ReadonlyArray<E>
  readonly stored: ReadonlyArray<StoredEvent>
  /** -1 for a stream that is gone: erased by a purge, or named by another kind's id. */
  readonly version: number
}

const empty: LoadedStream<never> = { history: [], stored: [], version: 0 }
const gone: LoadedStream<never> = { history: [], stored: [], version: -1 }

/**
 * Reads a stream of this aggregate as seen from one workspace, decoded with the aggregate's Schema.
 * A stream of another workspace is indistinguishable from one that does not exist; an id of another
 * kind names nothing of this one, and a purged stream nothing any more. A stored event that does not
 * decode is a defect.
 */
export const loadStream = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  streamId: string
): Effect.Effect<LoadedStream<E>, StorageUnavailable> =>
  !isStreamOf(aggregate, streamId) ? Effect.succeed(gone) : Effect.flatMap(deps.storage.readStream(streamId), (stored) => {
    const first = stored[0]
    if (first === undefined || first.metadata.workspaceId !== ctx.workspaceId) return Effect.succeed(empty)
    if (isErased(stored)) return Effect.succeed(gone)
    const decoded = decodeEvents(aggregate, stored)
    return Result.isFailure(decoded)
      ? Effect.die(decoded.failure)
      : Effect.succeed({ history: decoded.success, stored, version: stored.length })
  })

/** Where a command is decided: a stream as read (or a new one), in a workspace. */
export interface DecisionPoint<E> {
  readonly ctx: RequestContext
  readonly streamId: string
  readonly history: ReadonlyArray<E>
  readonly version: number
  /** What the stream's documents depend on (see StreamRef); none by default. */
  readonly definitions?: ReadonlyArray<CustomFieldDefinition>
}

/** A stream that does not exist yet: its id was just made. */
export const newStream = (ctx: RequestContext, streamId: string): DecisionPoint<never> => ({ ctx, streamId, history: [], version: 0 })

export interface Handled<E> {
  /** The stream's events after the command. */
  readonly all: ReadonlyArray<E>
  /** The events the command added (none when it changed nothing). */
  readonly fresh: ReadonlyArray<E>
  readonly version: number
}

/** One stream's share of a commit: what the command decided, ready to store. */
export interface Decided<E> extends Handled<E> {
  /** The new events with their metadata, valid only at the version they were decided on. */
  readonly append: StreamAppend
  /** The documents the stream projects to with them (none when nothing was decided). */
  readonly documents: ReadonlyArray<DocumentWrite>
}

/**
 * The decide step of every write: the command against the state of the stream, the events with the
 * metadata they are stored with, and the documents they project to. The command handler commits it;
 * a write that changes a second stream in the same commit (a delivery scheduled or cancelled, a
 * workspace's default pipeline) adds it to its own.
 */
export const decide = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  on: DecisionPoint<E>,
  command: NoInfer<C>,
  state: S = stateOf(aggregate, on.history)
): Effect.Effect<Decided<E>, DomainError> =>
  Effect.gen(function*() {
    const decided = aggregate.decider.decide(command, state)
    if (Result.isFailure(decided)) return yield* decided.failure
    const fresh = decided.success
    const events = yield* withMetadata(deps, on.ctx, fresh)
    const all = [...on.history, ...fresh]
    const version = on.version + fresh.length
    const stream = { workspaceId: on.ctx.workspaceId, id: on.streamId, definitions: on.definitions ?? [] }
    return {
      append: { streamId: on.streamId, expectedVersion: on.version, events },
      documents: fresh.length === 0 ? [] : aggregate.documents(stream, all, fresh, version),
      all,
      fresh,
      version
    }
  })

export interface AlsoContext<E> {
  readonly streamId: string
  readonly at: string
  /** The stream's events before this command. */
  readonly history: ReadonlyArray<E>
  /** The events this command adds, with the metadata (event ids) they will be stored with. */
  readonly fresh: ReadonlyArray<{ readonly event: E; readonly metadata: NewEvent["metadata"]; readonly version: number }>
}

/** More of a command's commit, decided from its new events: all of it is stored or none of it. */
export interface Addition {
  readonly streams: ReadonlyArray<StreamAppend>
  readonly documents: ReadonlyArray<DocumentWrite>
  /** Streams whose earlier events lose their data in this commit (a purge). */
  readonly redactStreams?: ReadonlyArray<string>
  /** Told to the workers of every host once the commit is stored (best effort: they also poll). */
  readonly signals?: ReadonlyArray<QueueSignal>
}

export interface HandleOptions<C, E, S> {
  readonly ctx: RequestContext
  readonly streamId: string
  /**
   * `existing` (the default): an empty stream is 404. `new`: the id was made for this command, so
   * the first attempt does not read the stream (should it exist after all, the commit meets a version
   * conflict and the retry reads it). `any`: the command may start the stream or add to it.
   */
  readonly stream?: "existing" | "new" | "any"
  readonly ifMatch?: IfMatch
  readonly definitions?: ReadonlyArray<CustomFieldDefinition>
  /**
   * The command, built from the stream as it is now; built again on every retry. `at` is the time of
   * this attempt, never earlier than the stream's last event, so a command that retries after losing a
   * race is recorded after the one that won it and the record's history stays in time order.
   */
  readonly command: (loaded: LoadedStream<E> & { readonly state: S; readonly at: string }) => Effect.Effect<C, WriteError>
  /** More of the same commit, decided from the new events: deliveries to schedule or cancel, a purge's redactions. */
  readonly also?: (context: AlsoContext<E>) => Effect.Effect<Addition, WriteError>
}

/**
 * Runs one command against one stream of an aggregate: load, decide, project, commit with optimistic
 * concurrency. A concurrent writer makes the commit fail with VersionConflict; the whole cycle then
 * runs again on the new state, so no update is ever lost, and after MAX_ATTEMPTS the client gets 409.
 * Under an Idempotency-Key the commit also records the key (see IdempotencyClaim).
 */
export const handleCommand = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  options: HandleOptions<C, E, S>
): Effect.Effect<Handled<E>, WriteError> => {
  const { ctx, streamId } = options
  const expected = options.stream ?? "existing"
  let assumeEmpty = expected === "new"
  const attempt = Effect.gen(function*() {
    const loaded: LoadedStream<E> = assumeEmpty ? empty : yield* loadStream(deps, aggregate, ctx, streamId)
    assumeEmpty = false
    if (loaded.version < 0 || (loaded.version === 0 && expected === "existing")) {
      return yield* new NotFound({ resource: aggregate.name, id: streamId })
    }
    const ifMatch = options.ifMatch ?? null
    if (ifMatch !== null && ifMatch !== loaded.version) {
      return yield* new PreconditionFailed({
        message: `If-Match names version ${ifMatch}; the current version is ${loaded.version}`,
        currentVersion: loaded.version
      })
    }
    const state = stateOf(aggregate, loaded.history)
    const now = yield* nowIso
    const lastAt = loaded.stored[loaded.stored.length - 1]?.data["at"]
    const at = typeof lastAt === "string" && lastAt > now ? lastAt : now
    const command = yield* options.command({ ...loaded, state, at })
    const decided = yield* decide(deps, aggregate, { ...loaded, ctx, streamId, definitions: options.definitions }, command, state)
    if (decided.fresh.length === 0) return { all: loaded.history, fresh: [], version: loaded.version } satisfies Handled<E>

    const addition: Addition = options.also === undefined ? { streams: [], documents: [] } : yield* options.also({
      streamId,
      at,
      history: loaded.history,
      fresh: decided.fresh.map((event, i) => ({
        event,
        metadata: decided.append.events[i]!.metadata,
        version: loaded.version + i + 1
      }))
    })
    const claim = yield* Effect.serviceOption(IdempotencyClaim)
    const claimed = Option.isSome(claim)
      ? [claimWrite(ctx.workspaceId, claim.value, { resource: aggregate.name, id: streamId }, at)]
      : []
    yield* deps.storage.commit({
      streams: [decided.append, ...addition.streams],
      documents: [...decided.documents, ...addition.documents, ...claimed],
      ...(addition.redactStreams === undefined ? {} : { redactStreams: addition.redactStreams })
    }).pipe(
      Effect.catchTag("UniqueViolation", (violation) =>
        Effect.fail(
          aggregate.uniqueKeyTaken?.(violation.existingId, command) ??
            new Conflict({ message: `${aggregate.name} conflicts with ${violation.existingId}`, details: [] })
        ))
    )
    yield* Effect.forEach(addition.signals ?? [], (signal) => deps.queue.signal(signal).pipe(Effect.ignore), { discard: true })
    return { all: decided.all, fresh: decided.fresh, version: decided.version } satisfies Handled<E>
  })

  return attempt.pipe(
    Effect.retry({ times: MAX_ATTEMPTS - 1, while: (error) => error._tag === "VersionConflict" }),
    Effect.catchTag("VersionConflict", () =>
      Effect.fail(
        new Conflict({
          message: `${aggregate.name} ${streamId} is being changed concurrently; retry the request`,
          details: []
        })
      ))
  )
}
