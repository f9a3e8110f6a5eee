import { Context, type Effect, Layer, Schema, type Scope } from "effect"
import type { DealRule } from "../../deal/rules.js"
import type { ApiKeyCreate } from "../../apiKey/input.js"
import type { ApiKeyOwner } from "../../apiKey/projection.js"
import type { ApiKeyScopes } from "../../apiKey/scopes.js"
import type { ProjectionFailed } from "../../storage/inlineProjection.js"
import type { Conflict, NotFound, PreconditionFailed, ScopeNotGranted, StorageUnavailable, ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { ListParams } from "../../query/parseListQuery.js"
import type { StorageReadiness } from "../../storage/Storage.js"
import type { StoragePosition } from "../../storage/positions.js"
import type { RecordExport } from "../views/exportRecords.js"
import type { Consume, ConsumersService } from "./Consumer.js"

/** Who is asking: every command and query runs inside exactly one workspace. */
export interface RequestContext {
  readonly workspaceId: string
  readonly requestId: string | null
  /** The API key's label or another principal, recorded in event metadata. */
  readonly actor: string | null
  /**
   * The `Idempotency-Key` a write is made under: the write's own commit records the key too, with
   * what it wrote and no answer yet (commands/idempotencyClaim.ts), so a host that stops before
   * storing the answer cannot let a retry apply the write twice. Absent for a write under no key.
   */
  readonly idempotency?: IdempotencyClaimShape
}

/** An `Idempotency-Key` and the fingerprint (method, path, body) of the request that used it. */
export interface IdempotencyClaimShape {
  readonly key: string
  readonly fingerprint: string
}

/** A single record with the version its ETag carries. */
export interface Versioned {
  readonly data: JsonObject
  readonly version: number
}

export interface Page {
  readonly data: ReadonlyArray<JsonObject>
  readonly next_cursor: string | null
}

/** Defined by the query module that validates them; the engine's list methods take them. */
export type { ListParams }

/** `If-Match`: the version the client last saw; the write happens only if it is still current. */
export type IfMatch = number | null

/** A response stored under an `Idempotency-Key`, replayed for the same key and body within 24 h. */
export const IdempotentResponse = Schema.Struct({
  /** Identifies method, path and body of the original request. */
  fingerprint: Schema.String,
  /**
   * null while only the write's own commit has recorded the key (see IdempotencyClaim): the write
   * happened, its answer was never stored.
   */
  status: Schema.NullOr(Schema.Number),
  body: Schema.Json,
  location: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  /** What the write made or changed, so its answer can be given again from the record. */
  applied: Schema.optionalKey(Schema.NullOr(Schema.Struct({ resource: Schema.String, id: Schema.String })))
})
export type IdempotentResponse = typeof IdempotentResponse.Type

/**
 * What a webhook test got, as a delivery attempt records it: the answer's status (null when none
 * came), how long the request took, and why no answer came (null when one did, whatever its status).
 */
export type WebhookTestAttempt = {
  readonly status_code: number | null
  readonly duration_ms: number
  readonly error: string | null
}

export type ReadError = NotFound | ValidationError | StorageUnavailable
/** ProjectionFailed: an inline projection of the embedder's failed inside the commit (storage/inlineProjection.ts). */
export type WriteError = NotFound | ValidationError | Conflict | PreconditionFailed | ProjectionFailed | StorageUnavailable

/** What each operation of a batch came to, in request order (see commands/batch.ts). */
export type BatchOutcome =
  | { readonly _tag: "Applied"; readonly created: boolean; readonly record: Versioned }
  | { readonly _tag: "Failed"; readonly error: WriteError }
  /** An atomic batch's operation left undone because another failed (HTTP 424). */
  | { readonly _tag: "NotApplied"; readonly failedIndex: number }

export interface BatchAnswer {
  readonly atomic: boolean
  readonly outcomes: ReadonlyArray<BatchOutcome>
}

/**
 * What every record type served over the API answers: its list page, one record, a create, a patch,
 * the trash's delete and restore, its history. `GetArgs` is what its `get` takes after the id (an
 * `expand` parameter, or nothing).
 */
export interface RecordService<GetArgs extends ReadonlyArray<unknown> = []> {
  /** params: limit, cursor, and the record type's own filters and sorts (its entry in EngineService says which). */
  readonly list: (ctx: RequestContext, params: ListParams) => Effect.Effect<Page, ValidationError | StorageUnavailable>
  readonly get: (ctx: RequestContext, id: string, ...rest: GetArgs) => Effect.Effect<Versioned, ReadError>
  readonly create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, WriteError>
  readonly update: (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) => Effect.Effect<Versioned, WriteError>
  readonly delete: (ctx: RequestContext, id: string, ifMatch: IfMatch) => Effect.Effect<void, WriteError>
  readonly restore: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, WriteError>
  /**
   * params: limit, cursor. Oldest first, per event: {event_id, type, at, actor: {api_key_id} | null,
   * request_id, changes: [{field, from, to}]}; a soft-deleted record has one, a purged one none (404).
   */
  readonly history: (ctx: RequestContext, id: string, params: ListParams) => Effect.Effect<Page, ReadError>
}

/**
 * Who manages keys through the API: the calling key's scopes (it grants no other), and whether it is
 * one the host was given (DEALSTREAM_API_KEYS, the dev key), which never expires and cannot be revoked
 * over the API, so the workspace keeps a key that manages keys whatever happens to its stored ones.
 */
export interface KeyManager {
  readonly scopes: ApiKeyScopes
  readonly configured: boolean
}

/** A stored key used at an instant (canonical ISO). */
export interface KeyUse {
  readonly keyId: string
  readonly at: string
}

/** The record as its GET would have answered at an instant, for the record types that keep that. */
export interface RecordAsOf {
  /**
   * `as_of`, a timestamp: its fields then, and its links as they were then. NotFound when it did not
   * exist then, was in the trash, or has been purged since; the version is its version then.
   */
  readonly getAsOf: (ctx: RequestContext, id: string, asOf: string) => Effect.Effect<Versioned, ReadError>
}

/** A person's data on request (API.md, "Privacy: export and erasure"; records/privacy.ts). */
export interface ContactPrivacy {
  /**
   * Everything held about the person, from one state: `{contact, deleted_at, history, activities,
   * deal_ids, company_ids, delivery_ids, exported_at}`, for a live contact or one in the trash.
   * NotFound for one erased, purged or never written.
   */
  readonly exportPerson: (ctx: RequestContext, id: string) => Effect.Effect<JsonObject, ReadError>
  /**
   * The purge of the trash window now, for a live contact or one in the trash, irreversible: its
   * documents removed, its events' data and its deliveries' payloads redacted, its links taken out
   * of deals and activities, the stored answers that show it redacted, a `contact.erased`
   * tombstone. Answers `{id, erased_at, redacted: {events, feed_entries, deliveries,
   * stored_answers}, unlinked: {deals, companies, activities}, erased_activities}`. NotFound for
   * one already erased or purged.
   */
  readonly erase: (ctx: RequestContext, id: string) => Effect.Effect<JsonObject, WriteError>
}

/** Merging duplicates (API.md, "Merge and duplicates"; records/merge.ts), for contacts and companies. */
export interface RecordMerge {
  /**
   * body: `{merge_ids, prefer?, dry_run?}`. Answers `{<type>: the survivor, merged_ids, moved: {<linking
   * type>_ids}}`; the whole merge is one commit, a dry run none.
   */
  readonly merge: (ctx: RequestContext, id: string, body: unknown) => Effect.Effect<JsonObject, WriteError>
  /**
   * body: `{<type>_id}`, a record merged into :id within 30 days. Answers `{<type>: the survivor,
   * restored: the record back as it was, relinked_ids}`; 409 when its unique key is taken meanwhile.
   */
  readonly unmerge: (ctx: RequestContext, id: string, body: unknown) => Effect.Effect<JsonObject, WriteError>
  /**
   * `GET /v1/<records>/duplicates`: groups of live records sharing a duplicate key (record/
   * duplicateKeys.ts), `{data: [{ids, rule, value, company_id?}], next_cursor}`, paged by `limit`
   * and `cursor` as every list.
   */
  readonly duplicates: (
    ctx: RequestContext,
    params: ListParams
  ) => Effect.Effect<
    { readonly data: ReadonlyArray<JsonObject>; readonly next_cursor: string | null },
    ValidationError | StorageUnavailable
  >
}

/** `POST /v1/<records>/batch`, for the record types that have one (see commands/batch.ts). */
export interface RecordBatch {
  readonly batch: (
    ctx: RequestContext,
    body: unknown
  ) => Effect.Effect<BatchAnswer, ValidationError | Conflict | ProjectionFailed | StorageUnavailable>
}

export interface EngineService {
  /**
   * list params: limit, cursor, search, filter, sort. get's `expand`: the raw `expand` parameter
   * (`deals,activities`) or null. getAsOf: the contact's fields then, and the deals that named it then
   * (a walk of the workspace's log). batch: creates, updates and upserts by email. exportPerson and
   * erase: a person's data on request (ContactPrivacy).
   */
  readonly contacts: RecordService<[expand: string | null]> & RecordAsOf & RecordBatch & ContactPrivacy & RecordMerge
  /**
   * list params: limit, cursor, search, filter, sort, pipeline_id, stage_id, owner_id, status,
   * contact_id, value_min, value_max, close_date_from, close_date_to. get's `expand`: the raw `expand`
   * parameter (`companies,activities`); none when absent or null. getAsOf: as contacts.getAsOf, the
   * deal's fields then, contact_ids limited to the contacts live then. history: a stage move changes
   * stage_id. batch: creates and updates.
   */
  readonly deals: RecordService<[expand?: string | null]> &
    RecordAsOf &
    RecordBatch & {
      /** body: {stage_id, reason?}; data is `{deal, timeline_entry}` (entry null when nothing moved). */
      readonly moveStage: (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) => Effect.Effect<Versioned, WriteError>
      /** params: limit, cursor. Oldest first. */
      readonly timeline: (ctx: RequestContext, id: string, params: ListParams) => Effect.Effect<Page, ReadError>
      /**
       * params: from, to (required dates, the window [from, to)), interval (month or quarter),
       * pipeline_id, owner_id. Open deals by expected_close_date, won deals by closed_at, per period.
       */
      readonly forecast: (ctx: RequestContext, params: ListParams) => Effect.Effect<JsonObject, ReadError>
    }
  /**
   * list params: limit, cursor, search (name, domain), filter, sort (name, domain, created_at,
   * updated_at, custom). get's `expand`: the raw `expand` parameter (`contacts,deals,activities`) or
   * null. batch: creates, updates and upserts by domain.
   */
  readonly companies: RecordService<[expand: string | null]> & RecordBatch & RecordMerge
  /**
   * list params: limit, cursor, filter, sort (due_at, created_at, updated_at), type, contact_id,
   * deal_id, company_id, owner_id, done. create's body: the activity's fields, and `done` (true sets
   * done_at); update's: any writable field, and `done` (true sets done_at, false clears it).
   */
  readonly activities: RecordService
  /**
   * The plug-in record types' services (record/plugin.ts), by name: list params limit, cursor,
   * filter, sort and search over its searchable fields; batch creates and updates, and upserts on
   * its unique field when it has one.
   */
  readonly records: ReadonlyMap<string, RecordService & RecordBatch>
  readonly pipelines: {
    /** Stores the workspace's default pipeline on the first call, hence ProjectionFailed. */
    readonly list: (ctx: RequestContext) => Effect.Effect<Page, ProjectionFailed | StorageUnavailable>
    readonly get: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>
    readonly create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, WriteError>
    readonly update: (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) => Effect.Effect<Versioned, WriteError>
    /**
     * params: owner_id, as_of. Per stage the live deals' count, value and weighted value per
     * currency and mean days in the stage; the open ones' totals. as_of folds the deal history.
     */
    readonly summary: (ctx: RequestContext, id: string, params: ListParams) => Effect.Effect<JsonObject, ReadError>
    /** params: from, to (required dates), owner_id. Stage-to-stage conversion, days in stage, win rate, cycle. */
    readonly conversion: (ctx: RequestContext, id: string, params: ListParams) => Effect.Effect<JsonObject, ReadError>
  }
  readonly customFields: {
    /** object: `contact`, `deal`, `company`, `activity` or null for all. */
    readonly list: (ctx: RequestContext, object: string | null) => Effect.Effect<Page, ValidationError | StorageUnavailable>
    readonly create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, WriteError>
    readonly delete: (ctx: RequestContext, object: string, key: string) => Effect.Effect<void, WriteError>
  }
  readonly trash: {
    /** params: type (contact|deal|company|activity, required), limit, cursor. Items: {type, id, deleted_at, purge_at, record}. */
    readonly list: (ctx: RequestContext, params: ListParams) => Effect.Effect<Page, ValidationError | StorageUnavailable>
  }
  readonly webhooks: {
    /** Every webhook of the workspace (not paginated; next_cursor is null). */
    readonly list: (ctx: RequestContext) => Effect.Effect<Page, StorageUnavailable>
    readonly get: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>
    /** body: {url, events, secret?}; the target is resolved and must be public unless insecure targets are allowed. */
    readonly create: (ctx: RequestContext, body: unknown) => Effect.Effect<Versioned, WriteError>
    /** body: any of url, events, secret (null removes it), status: "active" (reactivates a failed webhook). */
    readonly update: (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) => Effect.Effect<Versioned, WriteError>
    /** Cancels the webhook's queued deliveries in the same commit and aborts attempts in flight on every host. */
    readonly delete: (ctx: RequestContext, id: string, ifMatch: IfMatch) => Effect.Effect<void, WriteError>
    /** params: status (pending|succeeded|failed|cancelled), limit, cursor. Newest first. */
    readonly deliveries: (ctx: RequestContext, webhookId: string, params: ListParams) => Effect.Effect<Page, ReadError>
    /** One delivery with its attempts. */
    readonly delivery: (ctx: RequestContext, webhookId: string, deliveryId: string) => Effect.Effect<Versioned, ReadError>
    /** A new delivery of the same event and payload (`replay_of` = the old one), for any past delivery of a live webhook. */
    readonly replay: (ctx: RequestContext, webhookId: string, deliveryId: string) => Effect.Effect<Versioned, WriteError>
    /**
     * Sends a `webhook.test` event to the webhook now, signed as its deliveries are, whatever its
     * status, and answers the attempt; records nothing (no event, no delivery).
     */
    readonly test: (ctx: RequestContext, id: string) => Effect.Effect<WebhookTestAttempt, ReadError>
    /**
     * body: {since}. Starts a recovery job: in the background (every host's runner), a delivery of
     * each subscribed event recorded since then that the webhook has no succeeded or pending
     * delivery of, in sequence order. Conflict while another runs or while the webhook is failed.
     * Data: {id, webhook_id, since, status, scheduled, skipped, created_at, finished_at}.
     */
    readonly recover: (ctx: RequestContext, id: string, body: unknown) => Effect.Effect<Versioned, WriteError>
    /** A recovery job of this webhook, as `recover` answers it, with its progress. */
    readonly recovery: (ctx: RequestContext, id: string, jobId: string) => Effect.Effect<Versioned, ReadError>
  }
  /** The change feed: the workspace's record events in commit order, as webhook payloads. */
  readonly events: {
    /** GET /v1/events: `after`, `types`, `limit`, `wait` (seconds to hold an empty page). */
    readonly list: (ctx: RequestContext, params: ListParams) => Effect.Effect<FeedPage, ValidationError | StorageUnavailable>
    readonly get: (ctx: RequestContext, id: string) => Effect.Effect<JsonObject, ReadError>
    /**
     * For a host that is stopping: reads waiting for events answer now (with what they have, an
     * empty page), and later reads do not wait, so its connections drain at once.
     */
    readonly stopWaiting: Effect.Effect<void>
  }
  readonly idempotency: {
    /** The stored response for this key, or null when there is none younger than 24 h. */
    readonly get: (ctx: RequestContext, key: string) => Effect.Effect<IdempotentResponse | null, StorageUnavailable>
    readonly put: (ctx: RequestContext, key: string, response: IdempotentResponse) => Effect.Effect<void, StorageUnavailable>
  }
  /**
   * API keys. Their documents live in the reserved workspace SYSTEM_WORKSPACE, which no request can
   * name; their events in the workspace each key is for (its change feed shows them). The engine
   * only ever sees a key's SHA-256 (64 lowercase hex digits); whoever makes a key keeps the key
   * itself. The operator's calls (`dealstream keys`: create, revoke, list) name any workspace and
   * may change any key; the API's (listFor … recordUses) work in the caller's workspace and keep its
   * rules: a key grants only scopes it holds, and the last key that may manage keys stays.
   */
  readonly apiKeys: {
    /**
     * Conflict when a key with the same id exists (the same key, or one sharing its digest's
     * prefix): make another. Without `name`, `scopes` or `expiresAt`: no name, `"*"`, no expiry.
     * Answers the key's document, `{id, workspace_id, name, scopes, expires_at, created_at, revoked_at}`.
     */
    readonly create: (input: ApiKeyCreate & { readonly actor: string | null }) => Effect.Effect<Versioned, WriteError>
    /** NotFound for an unknown key id; revoking a revoked key changes nothing. Answers its document. */
    readonly revoke: (input: { readonly keyId: string; readonly actor: string | null }) => Effect.Effect<Versioned, WriteError>
    /** Every key's document (of one workspace, or of all when null), revoked ones included, oldest first; not paginated. */
    readonly list: (workspaceId: string | null) => Effect.Effect<Page, StorageUnavailable>
    /**
     * The owner of the key with this digest, expired or not (its `expiresAt` says); null when there
     * is none or it is revoked.
     */
    readonly authenticate: (keySha256: string) => Effect.Effect<ApiKeyOwner | null, StorageUnavailable>
    /**
     * GET /v1/api-keys: the workspace's keys as the API shows them (`{id, name, scopes, expires_at,
     * last_used_at, created_at, revoked_at}`), revoked ones included, oldest first, in one page.
     */
    readonly listFor: (ctx: RequestContext) => Effect.Effect<Page, StorageUnavailable>
    readonly get: (ctx: RequestContext, id: string) => Effect.Effect<Versioned, ReadError>
    /**
     * POST /v1/api-keys: body `{name, scopes, expires_at?}`, the new key's digest (made by the
     * caller, who answers the key itself once). ScopeNotGranted when `manager` lacks a scope asked
     * for; Conflict as `create` on an id taken (make another key).
     */
    readonly createFor: (
      ctx: RequestContext,
      body: unknown,
      keySha256: string,
      manager: KeyManager
    ) => Effect.Effect<Versioned, ValidationError | Conflict | ProjectionFailed | StorageUnavailable | ScopeNotGranted>
    /** PATCH /v1/api-keys/:id: any of `name`, `scopes`, `expires_at`. Conflict for a revoked or expired key, or the last manager's. */
    readonly update: (
      ctx: RequestContext,
      id: string,
      body: unknown,
      ifMatch: IfMatch,
      manager: KeyManager
    ) => Effect.Effect<Versioned, WriteError | ScopeNotGranted>
    /** DELETE /v1/api-keys/:id: revokes (again: nothing changes). Conflict for the workspace's last key that manages keys. */
    readonly delete: (ctx: RequestContext, id: string, ifMatch: IfMatch, manager: KeyManager) => Effect.Effect<void, WriteError>
    /**
     * Keeps when keys were last used (GET shows `last_used_at`): kept beside the keys, not as events.
     * A use within a minute of the one kept is not written. For a host's background writer: never
     * on a request's path.
     */
    readonly recordUses: (uses: ReadonlyArray<KeyUse>) => Effect.Effect<void, StorageUnavailable>
  }
  /** Purge every record soft-deleted more than 30 days ago (by the engine's Clock); returns how many. */
  readonly purgeExpired: Effect.Effect<number, StorageUnavailable>
  /** Storage reachable. */
  readonly ping: Effect.Effect<StorageReadiness, StorageUnavailable>
  /**
   * Every live record a list of these parameters shows, from one state, with the change feed cursor
   * of that state (views/exportRecords.ts): `list` is the record type's own (`engine.contacts.list`),
   * `encode` makes a page of records what the stream carries (the client's bytes).
   */
  readonly exportRecords: <A>(
    ctx: RequestContext,
    list: RecordService["list"],
    params: ListParams,
    encode: (rows: ReadonlyArray<JsonObject>) => A
  ) => Effect.Effect<RecordExport<A>, ValidationError | StorageUnavailable, Scope.Scope>
  /** The storage's position now (storage/positions.ts): what a write that stored nothing answers. */
  readonly position: Effect.Effect<StoragePosition, StorageUnavailable>
  /** Runs a handler over a workspace's change feed, each event once per checkpoint (feed/consume.ts). */
  readonly consume: Consume
  /** Consumers' checkpoints: read one, or reset it to rebuild a read model. */
  readonly consumers: ConsumersService
}

export class Engine extends Context.Service<Engine, EngineService>()("@dealstream/core/Engine") {}

/**
 * The deal rules of your own the engine decides every deal command with, after its own and the
 * pipelines' stage rules (see DealRule): none unless provided. Read when the engine is built:
 * `EngineLive.pipe(Layer.provide(dealRulesLayer([rule])))`.
 */
export const DealRules = Context.Reference<ReadonlyArray<DealRule>>("@dealstream/core/DealRules", { defaultValue: () => [] })

/** Registers deal rules with the engines built on it. */
export const dealRulesLayer = (rules: ReadonlyArray<DealRule>): Layer.Layer<never> => Layer.succeed(DealRules, rules)

/** A page of the change feed: `next_cursor` is always given, also on an empty page, to read on from. */
export interface FeedPage {
  readonly data: ReadonlyArray<JsonObject>
  readonly next_cursor: string
}
