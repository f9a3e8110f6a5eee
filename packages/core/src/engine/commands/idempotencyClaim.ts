import type { DocumentUpsert } from "../../storage/documents.js"
import type { IdempotencyClaimShape, IdempotentResponse } from "../contract/Engine.js"

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
