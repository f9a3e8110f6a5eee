import { Effect, Result } from "effect"
import type { Aggregate } from "../../aggregate.js"
import { Conflict, type DomainError } from "../../errors.js"
import type { DomainEvent } from "../../storage/events.js"
import type { Commit, SettingsRead, UniqueViolation } from "../../storage/Storage.js"
import type { EngineDeps } from "../base/deps.js"
import { type Settings, settingsOf } from "../base/settings.js"
import type { WriteError } from "../contract/Engine.js"
import type { HandleOptions } from "./commandOptions.js"
import type { Handled } from "./decide.js"
import { planAttempt } from "./planAttempt.js"

/** Version conflicts are retried this many times before the client gets a 409 (a command, an atomic batch, a merge). */
export const MAX_ATTEMPTS = 5

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
 * The commits of writes planned together (an atomic batch's, a merge's) as one: every stream at the
 * version it was decided on, every settings read once.
 */
export const sharedCommit = (commits: ReadonlyArray<Commit>): Commit => {
  const reads = new Map<string, SettingsRead>()
  for (const commit of commits) for (const read of commit.settingsRead ?? []) reads.set(read.workspaceId, read)
  return {
    streams: commits.flatMap((commit) => commit.streams),
    documents: commits.flatMap((commit) => commit.documents),
    redactStreams: commits.flatMap((commit) => commit.redactStreams ?? []),
    settingsRead: [...reads.values()]
  }
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
