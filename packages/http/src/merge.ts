import type { JsonObject, RequestContext, WriteError } from "@dealstream/core"
import type { HttpServerRequest } from "effect/http"
import { Effect, Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { createErrors, listErrors, replayable200 } from "./answerSchemas.js"
import { MergedRecord } from "./errors/HttpErrors.js"
import type { IdempotentRepliesService } from "./idempotency.js"
import { pageOf } from "./documented.js"
import { idempotencyHeader, idParams, pagingParams } from "./parameters.js"
import { postedJson, unconditional } from "./recordHandlers.js"
import { json } from "./replies.js"

// POST /v1/<records>/:id/merge (API.md, "Merge and duplicates"): declared once for every mergeable
// record type, handled by the engine's one merge.

/** The merge endpoint of a record resource: `type` names it in the body (`contact`), `record` is its answer schema. */
export const mergeEndpoint = <const Collection extends `/v1/${string}`, R extends Schema.Top>(
  resource: { readonly name: string; readonly type: string; readonly collection: Collection; readonly linking: ReadonlyArray<string> },
  record: R
) =>
  HttpApiEndpoint.post("merge", `${resource.collection}/:id/merge`, {
    params: idParams,
    headers: idempotencyHeader,
    payload: Schema.Struct({
      merge_ids: Schema.Array(Schema.String).annotate({
        description: `1 to 9 ids of live ${resource.type} records of the workspace, other than the survivor (:id), in the order their values are taken.`
      }),
      prefer: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)).annotate({
        description: `Per standard or custom field, the ${resource.type} (the survivor or one of merge_ids) whose value wins.`
      }),
      dry_run: Schema.optionalKey(Schema.Boolean).annotate({ description: "true: the same answer, and nothing changes." })
    }).annotate({ identifier: `${resource.name}Merge` }),
    success: replayable200(
      Schema.Struct({
        [resource.type]: record,
        merged_ids: Schema.Array(Schema.String),
        moved: Schema.Record(Schema.String, Schema.Array(Schema.String)).annotate({
          description: `The ids of the records whose links now name the survivor: ${resource.linking.map((key) => `\`${key}\``).join(", ")}.`
        })
      }).annotate({ identifier: `${resource.name}MergeResult` })
    ),
    error: [...createErrors, MergedRecord]
  }).annotate(
    OpenApi.Description,
    `Merges duplicates into the ${resource.type} :id, which keeps its id, in one commit. Its empty (null) fields take the first ` +
      "non-empty value among merge_ids in order; `prefer` chooses per field; the unique key is never copied. Every live record " +
      `linking a merged ${resource.type} links the survivor instead, once. The merged records leave every view for the trash ` +
      "(with `merged_into`). A concurrent write to any record involved makes the merge decide again on what is stored, or 409. " +
      "400 for an id that is not a live record; 404 when :id is not one."
  )

/** POST /v1/<records>/:id/unmerge: one merged record back, within the trash window. */
export const unmergeEndpoint = <const Collection extends `/v1/${string}`, R extends Schema.Top>(
  resource: { readonly name: string; readonly type: string; readonly collection: Collection },
  record: R
) =>
  HttpApiEndpoint.post("unmerge", `${resource.collection}/:id/unmerge`, {
    params: idParams,
    headers: idempotencyHeader,
    payload: Schema.Struct({
      [`${resource.type}_id`]: Schema.String.annotate({ description: `The ${resource.type} merged into :id to bring back.` })
    }).annotate({ identifier: `${resource.name}Unmerge` }),
    success: replayable200(
      Schema.Struct({
        [resource.type]: record,
        restored: record,
        relinked_ids: Schema.Array(Schema.String).annotate({
          description: "The records whose links the merge had moved and that link the restored record again."
        })
      }).annotate({ identifier: `${resource.name}UnmergeResult` })
    ),
    error: [...createErrors, MergedRecord]
  }).annotate(
    OpenApi.Description,
    `Undoes the merge of one ${resource.type} into :id, within 30 days of it, in one commit: the ${resource.type} comes back ` +
      "exactly as it was; the links the merge moved from it come back, except those changed since; the survivor gives back the " +
      "values it took only from it (those changed since stay). 409 when its unique key is taken by another live record meanwhile; " +
      "400 when it is not a record merged into :id within the window."
  )

/** GET /v1/<records>/duplicates: groups of live records sharing a duplicate key, paged as every list. */
export const duplicatesEndpoint = <const Collection extends `/v1/${string}`>(resource: {
  readonly name: string
  readonly type: string
  readonly collection: Collection
  readonly rules: ReadonlyArray<readonly [rule: string, meaning: string]>
}) =>
  HttpApiEndpoint.get("duplicates", `${resource.collection}/duplicates`, {
    query: pagingParams,
    success: pageOf(
      Schema.Struct({
        ids: Schema.Array(Schema.String).annotate({
          description: `The live ${resource.type} records of the group, in id order (two or more).`
        }),
        rule: Schema.Literals(resource.rules.map(([rule]) => rule)),
        value: Schema.String.annotate({ description: "What they share, as compared: trimmed and lowercased (a phone: its digits)." }),
        company_id: Schema.optionalKey(Schema.String).annotate({ description: "name_company: the company they have in common." })
      }).annotate({ identifier: `${resource.name}DuplicateGroup` }),
      `${resource.name}DuplicatePage`
    ),
    error: listErrors
  }).annotate(
    OpenApi.Description,
    `Groups of live ${resource.type} records that look like duplicates, each a candidate for a merge: ` +
      resource.rules.map(([rule, meaning]) => `\`${rule}\`, ${meaning}`).join("; ") +
      ". Trimming removes ASCII whitespace; lowercasing is Unicode's. A record is in one group per rule it matches (per company, for " +
      "name_company). Groups come in (rule, value) order. On PostgreSQL a page reads an index kept in every commit, not the records."
  )

/** The handler: the body to the engine, the answer as it gave it; under an Idempotency-Key, stored and replayed. */
export const mergeRecords =
  (
    idempotent: IdempotentRepliesService,
    merge: (ctx: RequestContext, id: string, body: unknown) => Effect.Effect<JsonObject, WriteError>
  ) =>
  ({ params, request }: { readonly params: { readonly id: string }; readonly request: HttpServerRequest.HttpServerRequest }) =>
    postedJson(idempotent, request, (ctx, body) => Effect.map(unconditional(merge(ctx, params.id, body)), (answer) => json(answer)))
