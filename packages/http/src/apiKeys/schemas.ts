import { Schema } from "effect"
import { nullable, Timestamp } from "../documented.js"

const KeyId = Schema.String.annotate({
  description: "`key_` and the first 12 hex digits of the key's SHA-256: it names the key everywhere (history entries' actor too).",
  examples: ["key_3f9c0a1b2d4e"]
})

/**
 * The schemas of key management (API.md, "API key scopes"); `scopes` are every scope a key may be
 * given on the host served (core's knownScopes: the built-in ones and its plug-ins').
 */
export const apiKeySchemas = (scopes: ReadonlyArray<string>) => {
  const Scopes = Schema.Union([
    Schema.Literal("*").annotate({ description: "Everything in the workspace." }),
    Schema.Array(Schema.Literals(scopes as [string, ...Array<string>])).annotate({ description: "These scopes only." })
  ]).annotate({
    description:
      'What the key may do: "*" or a list of scopes (the scope each operation needs is in its security requirement). ' +
      "A key grants only scopes it holds: asking for one the calling key lacks is 403 naming it.",
    examples: [["contacts:read", "deals:read"]]
  })

  const Name = Schema.String.annotate({ description: "1 to 200 characters, not blank.", examples: ["Nightly report"] })

  const ExpiresAt = Timestamp.annotate({
    description: "When the key stops working (401 with its own message from then on); null or absent: never. Must lie ahead."
  })

  const fields = {
    id: KeyId,
    name: nullable(Schema.String, "null for a key made without one (`dealstream keys create` without --name)."),
    scopes: Scopes,
    expires_at: nullable(Timestamp, "When it stops working; null: never."),
    last_used_at: nullable(
      Timestamp,
      "When a request last presented it (at most a minute and a few seconds behind: uses are recorded once a minute per key, in the background); null: never."
    ),
    created_at: Timestamp,
    revoked_at: nullable(Timestamp, "When it was revoked (DELETE); null while it is not.")
  }

  const ApiKey = Schema.Struct(fields).annotate({
    identifier: "ApiKey",
    description:
      "A stored API key, never the key itself nor its digest. Keys given to the host (DEALSTREAM_API_KEYS, the dev key) are not listed."
  })

  const CreatedApiKey = Schema.Struct({
    ...fields,
    key: Schema.String.annotate({
      description:
        "The key itself, for `Authorization: Bearer <key>`. Shown in this answer only: it is stored nowhere, only its SHA-256 is.",
      examples: ["dsk_8nZq3vV0cJkQeW1f6bX4hT9sLm2yR7aPdGu5oKiE0Ns"]
    })
  }).annotate({ identifier: "CreatedApiKey" })

  const ApiKeyInput = Schema.Struct({
    name: Name,
    scopes: Scopes,
    expires_at: Schema.optionalKey(Schema.NullOr(ExpiresAt))
  }).annotate({ identifier: "ApiKeyInput" })

  const ApiKeyPatch = Schema.Struct({
    name: Schema.optionalKey(Name),
    scopes: Schema.optionalKey(Scopes),
    expires_at: Schema.optionalKey(Schema.NullOr(ExpiresAt))
  }).annotate({ identifier: "ApiKeyPatch", description: "Only the fields given change." })

  return { ApiKey, CreatedApiKey, ApiKeyInput, ApiKeyPatch }
}
