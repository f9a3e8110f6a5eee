import { Clock, Effect, Schema } from "effect"
import type { Json } from "../../json.js"
import type { EngineDeps } from "../base/deps.js"
import { IdempotentResponse, type RequestContext } from "../contract/Engine.js"

const TTL_MILLIS = 24 * 60 * 60 * 1000
const BODY_TEXT = "body_text"

/** Stored responses of POSTs made with an Idempotency-Key, as documents of the workspace. */
export const makeIdempotency = (deps: EngineDeps) => ({
  get: (ctx: RequestContext, key: string) =>
    Effect.gen(function* () {
      const doc = yield* deps.storage.getDocument("idempotency", ctx.workspaceId, key)
      if (doc === null) return null
      // Written by put or by a write's claim: one that does not decode is a defect.
      const stored = yield* Schema.decodeUnknownEffect(IdempotentResponse)(doc.data).pipe(Effect.orDie)
      const now = yield* Clock.currentTimeMillis
      if (now - Date.parse(stored.created_at) >= TTL_MILLIS) return null
      const text = doc.data[BODY_TEXT]
      return typeof text === "string" ? { ...stored, body: JSON.parse(text) as Json } : stored
    }),
  put: (ctx: RequestContext, key: string, response: IdempotentResponse) =>
    deps.storage
      .commit({
        streams: [],
        documents: [
          {
            _tag: "Upsert",
            collection: "idempotency",
            workspaceId: ctx.workspaceId,
            id: key,
            version: 1,
            deletedAt: null,
            uniqueKey: null,
            searchWords: [],
            // The body as text, so a replay answers its keys in the order of the first answer (jsonb
            // would store them by key length).
            data: { ...response, body: null, [BODY_TEXT]: JSON.stringify(response.body) }
          }
        ]
      })
      .pipe(
        Effect.asVoid,
        // Documents only, no streams and no unique key: neither conflict can happen.
        Effect.catchTags({ VersionConflict: Effect.die, UniqueViolation: Effect.die })
      )
})
