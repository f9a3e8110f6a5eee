import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { createdOnce, defineErrors } from "../answerSchemas.js"
import { securedGroup } from "../documented.js"
import { idempotencyHeader } from "../parameters.js"
import { recordEndpoints } from "../recordEndpoints.js"
import { apiKeySchemas } from "./schemas.js"

const createDescription = `Makes a key for the caller's workspace and answers it once, in \`key\`: only its SHA-256 is stored.
The new key may have only scopes the calling key has ("*" only from a key with "*"): asking for another is 403 \`forbidden\`
naming it. With an Idempotency-Key the key is never made twice, but its answer is not kept (the key must be shown once and
stored nowhere): a retry under the same key is 409, naming the key made, which you may revoke and make again.`

const updateDescription = `Changes \`name\`, \`scopes\` (only to scopes the calling key has) or \`expires_at\` (null: never;
otherwise a later instant). A revoked or expired key cannot be changed (409). The workspace's last key that may manage keys
(\`keys:manage\`) and never expires cannot lose \`keys:manage\` nor be given an expiry, or an earlier one (409): give another key
\`keys:manage\` first. Every host applies a change within 5 s (at once on the host that made it).`

const deleteDescription = `Revokes the key: every host refuses it within 5 s (at once on the host that revoked it), and it stays
listed with its \`revoked_at\`. Revoking a revoked key changes nothing. The workspace's last key that may manage keys and never
expires cannot be revoked (409), unless the calling key is one the host was given (DEALSTREAM_API_KEYS, the dev key), which
cannot be revoked over the API. The operator's \`dealstream keys revoke\` may revoke any key.`

/** Key management (API.md, "API key scopes"); `scopes`: every scope a key may be given on the host served. */
export const apiKeysGroup = (scopes: ReadonlyArray<string>) => {
  const { ApiKey, ApiKeyInput, ApiKeyPatch, CreatedApiKey } = apiKeySchemas(scopes)
  const keys = recordEndpoints({
    name: "ApiKey",
    type: "API key",
    collection: "/v1/api-keys",
    record: ApiKey,
    input: ApiKeyInput,
    patch: ApiKeyPatch,
    list: {
      description:
        "Every key stored for the workspace (made here or with `dealstream keys create`), revoked ones included, oldest first, " +
        "in one page (next_cursor is null). Never a key itself nor its digest."
    },
    get: { description: "One stored key, with when it was last used." }
  })
  return securedGroup(
    "apiKeys",
    keys.list,
    keys.get,
    HttpApiEndpoint.post("create", "/v1/api-keys", {
      payload: ApiKeyInput,
      headers: idempotencyHeader,
      success: createdOnce(CreatedApiKey),
      error: defineErrors
    }).annotate(OpenApi.Description, createDescription),
    keys.update.annotate(OpenApi.Description, updateDescription),
    keys.delete.annotate(OpenApi.Description, deleteDescription)
  )
}
