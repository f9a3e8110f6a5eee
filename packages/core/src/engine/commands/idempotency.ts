import { Clock, Effect, Schema } from "effect"
import { isJsonObject, type Json, type JsonObject } from "../../json.js"
import type { Position, SortSpec } from "../../query/ast.js"
import { sortValueOf } from "../../query/sortKeys.js"
import type { DocumentWrite, StoredDocument } from "../../storage/documents.js"
import type { EngineDeps } from "../base/deps.js"
import { IdempotentResponse, type RequestContext } from "../contract/Engine.js"

const TTL_MILLIS = 24 * 60 * 60 * 1000
const BODY_TEXT = "body_text"
/** Stored answers read per query while a person's erasure looks for those that show them. */
const PAGE = 500
/** Stored answers have no `id` in their data: their key is the document's id, which pages order by. */
const BY_ID: SortSpec = { field: { name: "id", type: "id" }, direction: "asc" }

/** A stored answer made a write's claim again: what the request applied, no answer (see IdempotencyClaim). */
const lostAnswer = (doc: StoredDocument, applied: { readonly resource: string; readonly id: string }): JsonObject => {
  const claim: IdempotentResponse = {
    fingerprint: String(doc.data["fingerprint"] ?? ""),
    status: null,
    body: null,
    location: null,
    created_at: String(doc.data["created_at"] ?? ""),
    applied
  }
  return { ...claim }
}

/** `value` with every object whose `id` is `recordId` replaced by `{id, redacted: true}`. */
const withoutRecord = (value: Json, recordId: string): Json => {
  if (Array.isArray(value)) return value.map((item) => withoutRecord(item, recordId))
  if (!isJsonObject(value)) return value
  if (value["id"] === recordId) return { id: recordId, redacted: true }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutRecord(item, recordId)]))
}

/**
 * A person's erasure reaches the answers stored under an Idempotency-Key too. An answer that is the
 * record itself (a contact created or restored) is forgotten as if it had been lost: the key keeps
 * what the request applied, so a retry is answered from the record, which is gone (404). An answer
 * that shows it among others (a batch's results: an object whose `id` is it) keeps its status and
 * shape, with that object replaced by `{"id": …, "redacted": true}`. Every stored answer of the
 * workspace is looked at, a page at a time (one commit per page that has any); answers how many it
 * redacted. `resource` is the record's type, as a write's claim names it.
 */
export const redactStoredAnswers = (deps: EngineDeps, ctx: RequestContext, resource: string, recordId: string) =>
  Effect.gen(function* () {
    let redacted = 0
    for (let after: Position | null = null; ; ) {
      const page: ReadonlyArray<StoredDocument> = yield* deps.storage.queryDocuments("idempotency", ctx.workspaceId, {
        where: { _tag: "True" },
        scope: "live",
        sort: BY_ID,
        after,
        limit: PAGE
      })
      const writes: Array<DocumentWrite> = []
      for (const doc of page) {
        const text = doc.data[BODY_TEXT]
        if (typeof text !== "string" || !text.includes(recordId)) continue
        const body = JSON.parse(text) as Json
        const data =
          isJsonObject(body) && body["id"] === recordId
            ? lostAnswer(doc, { resource, id: recordId })
            : { ...doc.data, [BODY_TEXT]: JSON.stringify(withoutRecord(body, recordId)) }
        if (data[BODY_TEXT] === text) continue
        writes.push({ ...doc, _tag: "Upsert", uniqueKey: null, searchWords: [], data })
      }
      if (writes.length > 0) {
        // Documents only, no streams and no unique key: neither conflict can happen, and no projection runs.
        yield* deps.storage
          .commit({ streams: [], documents: writes })
          .pipe(Effect.catchTags({ VersionConflict: Effect.die, UniqueViolation: Effect.die, ProjectionFailed: Effect.die }))
        redacted += writes.length
      }
      const last = page[page.length - 1]
      if (page.length < PAGE || last === undefined) return redacted
      after = { value: sortValueOf(last.data, BY_ID.field), id: last.id }
    }
  })

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
        // Documents only, no streams and no unique key: neither conflict can happen, and no projection runs.
        Effect.catchTags({ VersionConflict: Effect.die, UniqueViolation: Effect.die, ProjectionFailed: Effect.die })
      )
})
