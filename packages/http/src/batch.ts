import {
  type ProjectionFailed,
  type BatchAnswer,
  type JsonObject,
  type BatchOutcome,
  type Conflict,
  MAX_BATCH_OPERATIONS,
  type RequestContext,
  type StorageUnavailable,
  type ValidationError
} from "@dealstream/core"
import type { HttpServerRequest } from "effect/http"
import { Effect, Schema } from "effect"
import { ErrorBody } from "./errors/ErrorBody.js"
import { errorAnswer } from "./errors/errorResponse.js"
import { PayloadTooLarge } from "./errors/HttpErrors.js"
import type { IdempotentRepliesService } from "./idempotency.js"
import { postedJson } from "./recordHandlers.js"
import { json } from "./replies.js"

/** The operations of a batch, documented; the engine checks them (core's parseBatch). */
export const batchInput = (record: string, identifier: string, upsertField: string | null) =>
  Schema.Struct({
    operations: Schema.Array(
      Schema.Struct({
        op: Schema.Literals(upsertField === null ? ["create", "update"] : ["create", "update", "upsert"]),
        id: Schema.optionalKey(Schema.String).annotate({ description: "update: the record's id." }),
        match: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)).annotate({
          description:
            upsertField === null
              ? "Not taken: these records have no unique key to upsert on."
              : `upsert: {"${upsertField}": "…"}, the ${upsertField} to match a live record on (whatever its case); a create when none holds it.`
        }),
        data: Schema.Record(Schema.String, Schema.Unknown).annotate({
          description: `As the body of the single request: ${record}Input for a create or an upsert that creates, ${record}Patch for an update.`
        })
      })
    ).annotate({ description: `1 to ${MAX_BATCH_OPERATIONS} operations; more is 413.` }),
    atomic: Schema.optionalKey(Schema.Boolean).annotate({
      description: "true: every operation is applied in one commit, or none is (the others answer 424). Default false: each on its own."
    })
  }).annotate({ identifier })

export const BatchResults = Schema.Struct({
  results: Schema.Array(
    Schema.Struct({
      index: Schema.Number,
      status: Schema.Number.annotate({
        description:
          "What the single request would have answered: 201 for a create (an upsert that created), 200 for an update, the error's " +
          "status otherwise; 424 for an operation of an atomic batch left undone because another failed."
      }),
      data: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)).annotate({
        description: "The record, as the single request answers it."
      }),
      error: Schema.optionalKey(
        Schema.Struct({
          ...ErrorBody.fields.error.fields,
          code: Schema.String.annotate({ description: "A code of the error shape, or failed_dependency (424)." })
        })
      ).annotate({ description: "The error body's `error` the single request would have answered." })
    })
  )
}).annotate({ identifier: "BatchResults" })

export const batchDescription = (records: string, upsert: string | null) =>
  `Up to ${MAX_BATCH_OPERATIONS} creates and updates${upsert === null ? "" : ` and upserts by ${upsert}`} of ${records} in one request, each ` +
  "answered in `results` (in request order) with the status and body the single request would have had. Without `atomic`, each " +
  "operation is applied on its own (operations on one record in request order, the others together, in as few commits as group " +
  "commit makes); with `atomic: true`, all in one commit or none (an atomic batch writes each record once). Webhooks and the change " +
  "feed get one event per applied operation. An Idempotency-Key covers the whole batch: a retry gets the stored answer; should the " +
  "answer have been lost after the batch applied (a host that stopped mid-batch: one that is not atomic may be partly applied), the " +
  "retry is 409 idempotency_conflict (read the records). A client that goes away does not stop a batch: the host finishes it."

const resultOf = (outcome: BatchOutcome, index: number, requestId: string): JsonObject => {
  switch (outcome._tag) {
    case "Applied":
      return { index, status: outcome.created ? 201 : 200, data: outcome.record.data }
    case "Failed":
      return { index, ...errorAnswer(outcome.error, requestId) }
    case "NotApplied":
      return {
        index,
        status: 424,
        error: {
          code: "failed_dependency",
          message: `not applied: operation ${outcome.failedIndex} of this atomic batch failed`,
          details: [],
          request_id: requestId
        }
      }
  }
}

/** Counted before the engine parses the rest: more operations than a batch holds is 413, as a body over its size is. */
const tooMany = (body: unknown) =>
  typeof body === "object" &&
  body !== null &&
  Array.isArray((body as Record<string, unknown>)["operations"]) &&
  ((body as Record<string, unknown>)["operations"] as Array<unknown>).length > MAX_BATCH_OPERATIONS

/** POST /v1/<records>/batch: 200 with a result per operation, under one Idempotency-Key. */
export const batchRecords =
  (
    idempotent: IdempotentRepliesService,
    run: (
      ctx: RequestContext,
      body: unknown
    ) => Effect.Effect<BatchAnswer, ValidationError | Conflict | ProjectionFailed | StorageUnavailable>
  ) =>
  ({ request }: { readonly request: HttpServerRequest.HttpServerRequest }) =>
    postedJson(idempotent, request, (ctx: RequestContext, body: unknown) =>
      Effect.gen(function* () {
        if (tooMany(body)) {
          return yield* new PayloadTooLarge({ message: `a batch holds at most ${MAX_BATCH_OPERATIONS} operations` })
        }
        const answer = yield* run(ctx, body)
        return json({ results: answer.outcomes.map((outcome, index) => resultOf(outcome, index, ctx.requestId ?? "")) })
      })
    )
