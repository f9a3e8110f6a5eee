import { Effect } from "effect"
import type { Aggregate } from "../../aggregate.js"
import { Conflict, type DomainError, NotFound, PreconditionFailed } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { DomainEvent } from "../../storage/events.js"
import type { Commit, StreamAppend, UniqueViolation } from "../../storage/Storage.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import { LinkGuards } from "../base/linkGuards.js"
import type { Settings } from "../base/settings.js"
import { emptyState, keep, loadState } from "../base/streamStates.js"
import type { WriteError } from "../contract/Engine.js"
import type { Addition, HandleOptions } from "./commandOptions.js"
import { decide, type Handled, handledOf } from "./decide.js"
import { claimWrite } from "./idempotencyClaim.js"
import { signalScheduled } from "./scheduledSignals.js"

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

/** The appends, then a check (no new event) of each guarded record the commit does not append to. */
const withGuards = (streams: ReadonlyArray<StreamAppend>, guards: ReadonlyMap<string, number>): ReadonlyArray<StreamAppend> => {
  const written = new Set(streams.map((append) => append.streamId))
  const checks = [...guards]
    .filter(([id]) => !written.has(id))
    .map(([streamId, expectedVersion]): StreamAppend => ({ streamId, expectedVersion, events: [] }))
  return checks.length === 0 ? streams : [...streams, ...checks]
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
    // The records the decision finds live, checked again by the commit (base/linkGuards.ts).
    const guards = new Map<string, number>()
    const guarded = Effect.provideService(LinkGuards, {
      add: (id, version) => {
        if (!guards.has(id)) guards.set(id, version)
      }
    })
    const prepared = options.prepare === undefined ? (undefined as P) : yield* guarded(options.prepare(settings))
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
    const command = yield* guarded(options.command({ ...stream, at, settings, prepared }))
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
    const claim = ctx.idempotency
    const claimed = claim === undefined ? [] : [claimWrite(ctx.workspaceId, claim, { resource: aggregate.name, id: streamId }, at)]
    const settingsRead = settings.read()
    const payloads = addition.payloads ?? []
    return {
      outcome: { ...handledOf(decided, payloads), prepared },
      commit: {
        streams: withGuards([withPayloads(decided.append, payloads), ...addition.streams], guards),
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
