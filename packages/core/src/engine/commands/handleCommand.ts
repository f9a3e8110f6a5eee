import { Effect, Option, Result } from "effect"
import { type Aggregate, decodeEvents, foldProjection } from "../../aggregate.js"
import type { Projected } from "../../decider.js"
import type { CustomFieldDefinition } from "../../field/custom.js"
import type { JsonObject } from "../../json.js"
import { Conflict, type DomainError, NotFound, PreconditionFailed, type StorageUnavailable } from "../../errors.js"
import type { QueueSignal } from "../../storage/DeliveryQueue.js"
import type { DocumentWrite } from "../../storage/documents.js"
import type { DomainEvent, NewEvent } from "../../storage/events.js"
import type { Commit, StreamAppend, UniqueViolation } from "../../storage/Storage.js"
import { type EngineDeps, nowIso, withMetadata } from "../base/deps.js"
import type { IfMatch, RequestContext, WriteError } from "../contract/Engine.js"
import { claimWrite, IdempotencyClaim } from "./idempotencyClaim.js"
import { signalScheduled } from "./scheduledSignals.js"
import { type Settings, settingsOf } from "../base/settings.js"
import { emptyState, keep, loadState, type StreamState } from "../base/streamStates.js"

/** Version conflicts are retried this many times before the client gets a 409. */
const MAX_ATTEMPTS = 5

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

const handledOf = <E, S>(
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
const historyOf = <C, E extends DomainEvent, S>(deps: EngineDeps, aggregate: Aggregate<C, E, S>, streamId: string, version: number) =>
  Effect.flatMap(deps.storage.readStream(streamId), (stored) => {
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
        ? [...(yield* historyOf(deps, aggregate, on.streamId, from)), ...fresh]
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

export interface AlsoContext<E> {
  readonly streamId: string
  readonly at: string
  /** The record's document before this command. */
  readonly before: Projected | null
  /** The events this command adds, with the metadata (event ids) they will be stored with. */
  readonly fresh: ReadonlyArray<{ readonly event: E; readonly metadata: NewEvent["metadata"]; readonly version: number }>
  /** The workspace's settings as this attempt reads them (the webhooks to schedule deliveries for). */
  readonly settings: Settings
}

/** More of a command's commit, decided from its new events: all of it is stored or none of it. */
export interface Addition {
  readonly streams: ReadonlyArray<StreamAppend>
  readonly documents: ReadonlyArray<DocumentWrite>
  /**
   * The data each of the command's new events is announced with (webhook payloads, the change
   * feed), by index, null for one not announced: stored with the event (EventMetadata.payload).
   */
  readonly payloads?: ReadonlyArray<JsonObject | null>
  /** Streams whose earlier events lose their data in this commit (a purge). */
  readonly redactStreams?: ReadonlyArray<string>
  /** Told to the workers of every host once the commit is stored (best effort: they also poll). */
  readonly signals?: ReadonlyArray<QueueSignal>
}

/** What a command is built from, on every attempt. */
export interface CommandInput<S> extends StreamState<S> {
  /**
   * The time of this attempt, never earlier than the stream's last event, so a command that retries
   * after losing a race is recorded after the one that won it and the record's history stays in order.
   */
  readonly at: string
  readonly settings: Settings
}

export interface HandleOptions<C, E, S, P> {
  readonly ctx: RequestContext
  readonly streamId: string
  /**
   * `existing` (the default): an empty stream is 404. `new`: the id was made for this command, so
   * the first attempt does not read the stream (should it exist after all, the commit meets a version
   * conflict and the retry reads it). `any`: the command may start the stream or add to it.
   */
  readonly stream?: "existing" | "new" | "any"
  /**
   * The stream's state as the caller read it just now by other means (the delivery worker, from the
   * document its claim returned): the first attempt decides on it without reading the stream, and
   * the commit checks its version, as with a kept state. Unlike a kept state it serves this command
   * only, so it is allowed for aggregates no host may keep (redactedInPlace).
   */
  readonly known?: StreamState<S>
  readonly ifMatch?: IfMatch
  /**
   * What the command needs of the workspace's settings before the stream is read (the body parsed
   * against the custom field catalog, say), so a bad request is refused before a missing record is;
   * made again on every attempt, and returned with the outcome.
   */
  readonly prepare?: (settings: Settings) => Effect.Effect<P, WriteError>
  /** The command, built from the stream as it is now; built again on every attempt. */
  readonly command: (input: CommandInput<S> & { readonly prepared: P }) => Effect.Effect<C, WriteError>
  /** More of the same commit, decided from the new events: deliveries to schedule or cancel, a purge's redactions. */
  readonly also?: (context: AlsoContext<E>) => Effect.Effect<Addition, WriteError>
}

/** The command's events with the data they are announced with, kept in their metadata. */
const withPayloads = (append: StreamAppend, payloads: ReadonlyArray<JsonObject | null>): StreamAppend =>
  payloads.length === 0
    ? append
    : {
        ...append,
        events: append.events.map((event, i) => {
          const payload = payloads[i]
          return payload === null || payload === undefined ? event : { ...event, metadata: { ...event.metadata, payload } }
        })
      }

/**
 * One attempt decided, not yet stored: its outcome, the commit that stores it (null when the command
 * changed nothing), and what follows once that commit is stored. A batch of commands applied all or
 * nothing merges the commits of several (batch.ts); a single command stores its own.
 */
export interface PlannedAttempt<E, S, P> {
  readonly outcome: Handled<E, S> & { readonly prepared: P }
  readonly commit: Commit | null
  /** The refusal a unique key taken by another document stands for. */
  readonly uniqueKeyTaken: (violation: UniqueViolation) => DomainError
  /** Keeps the state this host decided on, and tells the workers; run only once the commit is stored. */
  readonly stored: Effect.Effect<void>
}

/**
 * Decides one attempt on the stream as this host kept it or reads it now (`mode`), with the
 * workspace's settings as `settings` reads them.
 */
export const planAttempt = <C, E extends DomainEvent, S, P>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  options: HandleOptions<C, E, S, P>,
  mode: { readonly assumeEmpty: boolean; readonly verify: boolean },
  settings: Settings,
  /** Told whether the stream's state was kept rather than read just now. */
  onState: (kept: boolean) => void = () => {}
): Effect.Effect<PlannedAttempt<E, S, P>, WriteError> =>
  Effect.gen(function* () {
    const { ctx, streamId } = options
    const prepared = options.prepare === undefined ? (undefined as P) : yield* options.prepare(settings)
    const loaded = mode.assumeEmpty
      ? { stream: emptyState(aggregate), verified: true }
      : options.known !== undefined && !mode.verify
        ? { stream: options.known, verified: false }
        : yield* loadState(deps.storage, deps.states, aggregate, ctx, streamId, !mode.verify)
    onState(!loaded.verified)
    const stream = loaded.stream
    if (stream.version < 0 || (stream.version === 0 && (options.stream ?? "existing") === "existing")) {
      return yield* new NotFound({ resource: aggregate.name, id: streamId })
    }
    const ifMatch = options.ifMatch ?? null
    if (ifMatch !== null && ifMatch !== stream.version) {
      return yield* new PreconditionFailed({
        message: `If-Match names version ${ifMatch}; the current version is ${stream.version}`,
        currentVersion: stream.version
      })
    }
    const now = yield* nowIso
    const at = stream.lastAt !== undefined && stream.lastAt > now ? stream.lastAt : now
    const command = yield* options.command({ ...stream, at, settings, prepared })
    const definitions = aggregate.searched === true ? (yield* settings.catalogs).defs : []
    const decided = yield* decide(deps, aggregate, { ctx, streamId, stream, definitions }, command)
    const uniqueKeyTaken = (violation: UniqueViolation): DomainError =>
      aggregate.uniqueKeyTaken?.(violation.existingId, command) ??
      new Conflict({ message: `${aggregate.name} conflicts with ${violation.existingId}`, details: [] })
    if (decided.fresh.length === 0)
      return { outcome: { ...handledOf(decided), prepared }, commit: null, uniqueKeyTaken, stored: Effect.void }

    const addition: Addition =
      options.also === undefined
        ? { streams: [], documents: [] }
        : yield* options.also({
            streamId,
            at,
            before: stream.projected,
            fresh: decided.fresh.map((event, i) => ({
              event,
              metadata: decided.append.events[i]!.metadata,
              version: stream.version + i + 1
            })),
            settings
          })
    const claim = yield* Effect.serviceOption(IdempotencyClaim)
    const claimed = Option.isSome(claim) ? [claimWrite(ctx.workspaceId, claim.value, { resource: aggregate.name, id: streamId }, at)] : []
    const settingsRead = settings.read()
    const payloads = addition.payloads ?? []
    return {
      outcome: { ...handledOf(decided, payloads), prepared },
      commit: {
        streams: [withPayloads(decided.append, payloads), ...addition.streams],
        documents: [...decided.documents, ...addition.documents, ...claimed],
        ...(addition.redactStreams === undefined ? {} : { redactStreams: addition.redactStreams }),
        ...(settingsRead === null ? {} : { settingsRead: [settingsRead] })
      },
      uniqueKeyTaken,
      stored: Effect.andThen(
        Effect.sync(() =>
          keep(deps.states, aggregate, ctx, streamId, {
            version: decided.version,
            state: decided.state,
            projected: decided.projected,
            lastAt: at
          })
        ),
        Effect.forEach(
          addition.signals ?? [],
          (signal) => (signal._tag === "Scheduled" ? signalScheduled(deps.queue) : deps.queue.signal(signal).pipe(Effect.ignore)),
          { discard: true }
        )
      )
    }
  })

/** One attempt, and whether it decided on anything this host kept rather than read just now. */
const attemptOnce = <C, E extends DomainEvent, S, P>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  options: HandleOptions<C, E, S, P>,
  mode: { readonly assumeEmpty: boolean; readonly verify: boolean }
) => {
  const settings = settingsOf(deps.storage, deps.settings, options.ctx, mode.verify)
  let keptState = false
  const run = Effect.gen(function* () {
    const planned = yield* planAttempt(deps, aggregate, options, mode, settings, (kept) => {
      keptState = kept
    })
    if (planned.commit === null) return planned.outcome
    yield* deps.storage
      .commit(planned.commit)
      .pipe(Effect.catchTag("UniqueViolation", (violation) => Effect.fail(planned.uniqueKeyTaken(violation))))
    yield* planned.stored
    return planned.outcome
  })
  return {
    run,
    /** Whether the outcome rests on a state or settings this host kept, which another host may have changed. */
    onKept: () => keptState || (settings.read() !== null && !settings.verified())
  }
}

/**
 * Runs one command against one stream of an aggregate: load, decide, project, commit with optimistic
 * concurrency. Emmett's handleCommand is the model.
 *
 * The first attempt decides on what this host kept of the stream and of the workspace's settings,
 * without reading either, and commits against their versions: one round trip. A concurrent writer
 * (another host, say) makes the commit fail with VersionConflict; the whole cycle then runs again
 * on the stream and settings as stored, so no update is ever lost, and after MAX_ATTEMPTS the client
 * gets 409. An outcome that commits nothing (a refusal, or a command that changes nothing) is never
 * answered from what was kept: it is decided again on what is stored. Under an Idempotency-Key the
 * commit also records the key (see IdempotencyClaim).
 */
export const handleCommand = <C, E extends DomainEvent, S, P>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  options: HandleOptions<C, E, S, P>
): Effect.Effect<Handled<E, S> & { readonly prepared: P }, WriteError> =>
  Effect.gen(function* () {
    let mode = { assumeEmpty: options.stream === "new", verify: false }
    for (let attempt = 1; ; attempt++) {
      const once = attemptOnce(deps, aggregate, options, mode)
      const outcome = yield* Effect.result(once.run)
      const again = { assumeEmpty: false, verify: true }
      if (Result.isSuccess(outcome)) {
        if (outcome.success.fresh.length === 0 && once.onKept()) {
          mode = again
          continue
        }
        return outcome.success
      }
      const error = outcome.failure
      if (error._tag === "VersionConflict") {
        if (error.streamId.startsWith("settings:")) deps.settings.delete(options.ctx.workspaceId)
        if (attempt >= MAX_ATTEMPTS) {
          return yield* new Conflict({
            message: `${aggregate.name} ${options.streamId} is being changed concurrently; retry the request`,
            details: []
          })
        }
        mode = again
        continue
      }
      if (error._tag !== "StorageUnavailable" && once.onKept()) {
        mode = again
        continue
      }
      return yield* error
    }
  })

/** A write planned for a commit shared with other writes (an atomic batch's), answered once it is stored. */
export interface PlannedWrite<A> {
  readonly commit: Commit | null
  readonly uniqueKeyTaken: (violation: UniqueViolation) => DomainError
  readonly stored: Effect.Effect<void>
  readonly answer: Effect.Effect<A, WriteError>
}

/**
 * One command on one stream and how its outcome is answered: run alone (handleCommand, its own
 * commit), or planned into a commit with others on the stream as stored now. Whatever the
 * aggregate, a batch holds them alike.
 */
export interface Write<A> {
  readonly streamId: string
  readonly run: Effect.Effect<A, WriteError>
  readonly plan: (settings: Settings) => Effect.Effect<PlannedWrite<A>, WriteError>
}

export const write = <C, E extends DomainEvent, S, P, A>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  options: HandleOptions<C, E, S, P>,
  answer: (outcome: Handled<E, S> & { readonly prepared: P }) => Effect.Effect<A, WriteError>
): Write<A> => ({
  streamId: options.streamId,
  run: Effect.flatMap(handleCommand(deps, aggregate, options), answer),
  plan: (settings) =>
    Effect.map(planAttempt(deps, aggregate, options, { assumeEmpty: options.stream === "new", verify: true }, settings), (planned) => ({
      commit: planned.commit,
      uniqueKeyTaken: planned.uniqueKeyTaken,
      stored: planned.stored,
      answer: answer(planned.outcome)
    }))
})
