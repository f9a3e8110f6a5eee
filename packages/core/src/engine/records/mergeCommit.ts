import { Effect, Result } from "effect"
import { Conflict, type DomainError } from "../../errors.js"
import type { UniqueViolation } from "../../storage/Storage.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import { MAX_ATTEMPTS, type PlannedWrite, sharedCommit } from "../commands/handleCommand.js"
import { claimWrite } from "../commands/idempotencyClaim.js"
import type { IdempotencyClaimShape, RequestContext, WriteError } from "../contract/Engine.js"

export interface MergeCommitOptions {
  /** The request's Idempotency-Key claim, stored in the same commit (the merge's one claim). */
  readonly claim: IdempotencyClaimShape | undefined
  /** What the claim records as applied: the survivor. */
  readonly applied: { readonly resource: string; readonly id: string }
  readonly attempt: number
  /** "merge" or "unmerge", for the 409's message. */
  readonly doing: string
  readonly uniqueKeyTaken: (violation: UniqueViolation) => DomainError
}

/**
 * Stores a merge's or an unmerge's planned writes in one commit, then lets each answer. "retry"
 * after a version conflict while attempts remain (the workspace's settings forgotten when they
 * were the conflict); past them 409. A unique key taken is `uniqueKeyTaken`'s answer.
 */
export const commitPlanned = (
  deps: EngineDeps,
  ctx: RequestContext,
  planned: ReadonlyArray<PlannedWrite<unknown>>,
  options: MergeCommitOptions
): Effect.Effect<"stored" | "retry", WriteError> =>
  Effect.gen(function* () {
    const all = sharedCommit(planned.flatMap((plan) => (plan.commit === null ? [] : [plan.commit])))
    const claimed = options.claim === undefined ? [] : [claimWrite(ctx.workspaceId, options.claim, options.applied, yield* nowIso)]
    const stored = yield* Effect.result(deps.storage.commit({ ...all, documents: [...all.documents, ...claimed] }))
    if (Result.isFailure(stored)) {
      const error = stored.failure
      if (error._tag === "VersionConflict") {
        if (error.streamId.startsWith("settings:")) deps.settings.delete(ctx.workspaceId)
        if (options.attempt < MAX_ATTEMPTS) return "retry" as const
        return yield* new Conflict({
          message: `the ${options.applied.resource}s of the ${options.doing} are being changed concurrently; retry the request`,
          details: []
        })
      }
      if (error._tag === "UniqueViolation") return yield* Effect.fail(options.uniqueKeyTaken(error))
      return yield* error
    }
    yield* Effect.forEach(planned, (plan) => plan.stored, { discard: true })
    return "stored" as const
  })
