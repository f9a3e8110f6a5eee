import { Effect, Result, Option } from "effect"
import type { Decider, Projected } from "../decider.js"
import { Conflict, NotFound, PreconditionFailed } from "../errors.js"
import { type SearchFields, searchWordsOfDocument } from "../query/documentSearchWords.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { DomainEvent, NewEvent, StoredEvent } from "../storage/events.js"
import type { StreamAppend, UniqueViolation } from "../storage/Storage.js"
import { type EngineDeps, nowIso, withMetadata } from "./deps.js"
import type { IfMatch, RequestContext, WriteError } from "./Engine.js"
import { claimWrite, IdempotencyClaim } from "./idempotencyClaim.js"
import { purgedDeliveries } from "./purgedDeliveries.js"

/** Version conflicts are retried this many times before the client gets a 409. */
const MAX_ATTEMPTS = 5

export interface LoadedStream<E> {
  /** The stream's events so far (only this workspace's; another workspace's stream reads as empty). */
  readonly history: ReadonlyArray<E>
  readonly stored: ReadonlyArray<StoredEvent>
  readonly version: number
}

/**
 * Reads a stream as seen from one workspace. A stream of another workspace is indistinguishable
 * from one that does not exist, and so is a purged one: its earlier events have been redacted.
 */
export const loadStream = <E extends DomainEvent>(
  deps: EngineDeps,
  ctx: RequestContext,
  streamId: string
) =>
  Effect.map(deps.storage.readStream(streamId), (stored): LoadedStream<E> => {
    const first = stored[0]
    if (first === undefined || first.metadata.workspaceId !== ctx.workspaceId) {
      return { history: [], stored: [], version: 0 }
    }
    if (stored.some((event) => event.type.endsWith(".purged"))) {
      return { history: [], stored: [], version: -1 }
    }
    return { history: stored as unknown as ReadonlyArray<E>, stored, version: stored.length }
  })

export const foldProjection = <E>(
  project: (doc: Projected | null, event: E) => Projected | null,
  events: ReadonlyArray<E>,
  from: Projected | null = null
): Projected | null => events.reduce(project, from)

export interface Execution<C, E extends DomainEvent, S> {
  readonly ctx: RequestContext
  readonly streamId: string
  readonly resource: string
  readonly decider: Decider<C, E, S>
  readonly ifMatch: IfMatch
  /** Whether the command may create the stream; otherwise an empty stream is 404. */
  readonly creates: boolean
  /**
   * The stream id was minted for this command, so the stream is empty: the first attempt does not
   * read it. Should it exist after all, the commit meets a version conflict and the retry reads it.
   */
  readonly newStream?: boolean
  /**
   * The command, built from the stream as it is now; built again on every retry. `at` is the time of
   * this attempt, never earlier than the stream's last event, so a command that retries after losing a
   * race is recorded after the one that won it and the record's history stays in time order.
   */
  readonly command: (loaded: LoadedStream<E> & { readonly state: S; readonly at: string }) => Effect.Effect<C, WriteError>
  /** The documents the whole stream projects to once `fresh` is appended at `version`. */
  readonly documents: (all: ReadonlyArray<E>, fresh: ReadonlyArray<E>, version: number) => ReadonlyArray<DocumentWrite>
  /**
   * More of the same commit, decided from the new events (with their metadata): deliveries the
   * outbox schedules, deliveries a webhook's deletion cancels. All of it is stored or none of it.
   */
  readonly also?: (context: AlsoContext<E>) => Effect.Effect<Addition, WriteError>
  /**
   * Purge: erase the personal data of the stream's earlier events in the same commit, and of the
   * deliveries that carried them (purgedDeliveries).
   */
  readonly redact?: boolean
  readonly onUniqueViolation?: (violation: UniqueViolation) => WriteError
}

export interface AlsoContext<E> {
  readonly streamId: string
  readonly at: string
  /** The stream's events before this command. */
  readonly history: ReadonlyArray<E>
  /** The events this command adds, with the metadata (event ids) they will be stored with. */
  readonly fresh: ReadonlyArray<{ readonly event: E; readonly metadata: NewEvent["metadata"]; readonly version: number }>
}

export interface Addition {
  readonly streams: ReadonlyArray<StreamAppend>
  readonly documents: ReadonlyArray<DocumentWrite>
  /** Streams whose earlier events lose their data in this commit (see `redact`). */
  readonly redactStreams?: ReadonlyArray<string>
}

export interface Executed<E> {
  readonly all: ReadonlyArray<E>
  readonly fresh: ReadonlyArray<StoredEvent>
  readonly version: number
}

/**
 * Runs one command against one stream: load, decide, project, commit with optimistic concurrency.
 * A concurrent writer makes the commit fail with VersionConflict; the whole cycle then runs again on
 * the new state, so no update is ever lost, and after MAX_ATTEMPTS the client gets 409.
 */
export const execute = <C, E extends DomainEvent, S>(deps: EngineDeps, run: Execution<C, E, S>) => {
  let assumeEmpty = run.newStream === true
  const attempt = Effect.gen(function*() {
    const loaded: LoadedStream<E> = assumeEmpty
      ? { history: [], stored: [], version: 0 }
      : yield* loadStream<E>(deps, run.ctx, run.streamId)
    assumeEmpty = false
    // Streams are named by id alone, so a contact's id sent to a deal route reads the contact's
    // stream, which the deal decider cannot fold (it threw: a 500). That record is no deal: 404.
    const ofAnotherKind = loaded.stored[0] !== undefined && !loaded.stored[0].type.startsWith(`${run.resource}.`)
    if (loaded.version < 0 || (loaded.version === 0 && !run.creates) || ofAnotherKind) {
      return yield* new NotFound({ resource: run.resource, id: run.streamId })
    }
    if (run.ifMatch !== null && run.ifMatch !== loaded.version) {
      return yield* new PreconditionFailed({
        message: `If-Match names version ${run.ifMatch}; the current version is ${loaded.version}`,
        currentVersion: loaded.version
      })
    }
    const state = loaded.history.reduce(run.decider.evolve, run.decider.initialState)
    const now = yield* nowIso
    const lastAt = loaded.stored[loaded.stored.length - 1]?.data["at"]
    const at = typeof lastAt === "string" && lastAt > now ? lastAt : now
    const command = yield* run.command({ ...loaded, state, at })
    const decided = run.decider.decide(command, state)
    if (Result.isFailure(decided)) return yield* decided.failure
    const fresh = decided.success
    if (fresh.length === 0) return { all: loaded.history, fresh: [], version: loaded.version } satisfies Executed<E>

    const events = yield* withMetadata(deps, run.ctx, fresh)
    const all = [...loaded.history, ...fresh]
    const version = loaded.version + fresh.length
    const addition = run.also === undefined ? { streams: [], documents: [] } : yield* run.also({
      streamId: run.streamId,
      at,
      history: loaded.history,
      fresh: fresh.map((event, i) => ({ event, metadata: events[i]!.metadata, version: loaded.version + i + 1 }))
    })
    const erased = run.redact === true ? yield* purgedDeliveries(deps, run.ctx, run.streamId, at) : null
    const claim = yield* Effect.serviceOption(IdempotencyClaim)
    const claimed = Option.isSome(claim)
      ? [claimWrite(run.ctx.workspaceId, claim.value, { resource: run.resource, id: run.streamId }, at)]
      : []
    const result = yield* deps.storage.commit({
      streams: [{ streamId: run.streamId, expectedVersion: loaded.version, events }, ...addition.streams, ...(erased?.streams ?? [])],
      documents: [...run.documents(all, fresh, version), ...addition.documents, ...(erased?.documents ?? []), ...claimed],
      ...(erased === null ? {} : { redactStreams: [run.streamId, ...(erased.redactStreams ?? [])] })
    })
    if (addition.streams.some((stream) => stream.events[0]?.type === "delivery.scheduled")) {
      // Wake the workers of every host; if the signal is lost, their polling finds the work anyway.
      yield* deps.queue.signal({ _tag: "Scheduled" }).pipe(Effect.ignore)
    }
    return { all, fresh: result.events, version } satisfies Executed<E>
  })

  return attempt.pipe(
    Effect.retry({ times: MAX_ATTEMPTS - 1, while: (error) => error._tag === "VersionConflict" }),
    Effect.catchTags({
      VersionConflict: () =>
        Effect.fail(
          new Conflict({
            message: `${run.resource} ${run.streamId} is being changed concurrently; retry the request`,
            details: []
          })
        ),
      UniqueViolation: (violation) =>
        Effect.fail(
          run.onUniqueViolation?.(violation) ??
            new Conflict({ message: `${run.resource} conflicts with ${violation.existingId}`, details: [] })
        )
    })
  )
}

/** A projected record as a document write: an upsert, or a removal once the record is purged. */
export const documentWrite = (
  collection: DocumentWrite["collection"],
  workspaceId: string,
  id: string,
  version: number,
  projected: Projected | null,
  options: { readonly uniqueKey?: string | null; readonly search?: SearchFields } = {}
): DocumentWrite =>
  projected === null
    ? { _tag: "Remove", collection, workspaceId, id }
    : {
      _tag: "Upsert",
      collection,
      workspaceId,
      id,
      version,
      deletedAt: projected.deletedAt,
      uniqueKey: options.uniqueKey ?? null,
      searchWords: options.search === undefined ? [] : searchWordsOfDocument(projected.data, options.search),
      data: projected.data
    }
