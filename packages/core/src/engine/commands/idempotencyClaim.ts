import { Context } from "effect"
import type { DocumentUpsert } from "../../storage/documents.js"
import type { IdempotentResponse } from "../contract/Engine.js"

/**
 * A write made under an `Idempotency-Key`. The commit that applies it also records the key, with
 * what it wrote and no answer yet: a host that stops before storing the answer leaves the key behind
 * anyway, so a retry finds the write instead of making it again.
 */
export interface IdempotencyClaimShape {
  readonly key: string
  readonly fingerprint: string
}

export class IdempotencyClaim extends Context.Service<IdempotencyClaim, IdempotencyClaimShape>()("@dealstream/core/IdempotencyClaim") {}

/** The key's record in the write's own commit; the stored answer replaces it once there is one. */
export const claimWrite = (
  workspaceId: string,
  claim: IdempotencyClaimShape,
  applied: { readonly resource: string; readonly id: string },
  at: string
): DocumentUpsert => {
  const pending: IdempotentResponse = {
    fingerprint: claim.fingerprint,
    status: null,
    body: null,
    location: null,
    created_at: at,
    applied
  }
  return {
    _tag: "Upsert",
    collection: "idempotency",
    workspaceId,
    id: claim.key,
    version: 1,
    deletedAt: null,
    uniqueKey: null,
    searchWords: [],
    data: { ...pending }
  }
}
