import { Engine, ValidationError } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { batchRecords } from "../batch.js"
import { Caller } from "../auth/Authentication.js"
import { createRecord, deleteRecord, listRecords, recordPage, restoreRecord, writeRecord } from "../recordHandlers.js"
import { readQuery } from "../request/queryParams.js"
import { record, respond } from "../replies.js"
import { IdempotentReplies } from "../idempotency.js"

const COLLECTION = "/v1/deals"

export const DealsLive = HttpApiBuilder.group(Api, "deals", (handlers) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const idempotent = yield* IdempotentReplies
    return handlers
      .handle("list", listRecords(engine.deals.list))
      .handle("get", ({ params, request }) =>
        Effect.gen(function* () {
          const query = yield* readQuery(request, ["expand", "as_of"])
          const ctx = yield* Caller
          if (query["as_of"] === undefined) return respond(record(yield* engine.deals.get(ctx, params.id, query["expand"] ?? null)))
          if (query["expand"] !== undefined) return yield* ValidationError.at("as_of", "cannot be combined with expand")
          return respond(record(yield* engine.deals.getAsOf(ctx, params.id, query["as_of"])))
        })
      )
      .handleRaw("batch", batchRecords(idempotent, engine.deals.batch))
      .handleRaw(
        "create",
        createRecord(idempotent, COLLECTION, engine.deals.create, (ctx, id) => engine.deals.get(ctx, id, null))
      )
      .handleRaw("update", writeRecord(engine.deals.update))
      .handleRaw("moveStage", writeRecord(engine.deals.moveStage))
      .handle("delete", deleteRecord(engine.deals.delete))
      .handle(
        "restore",
        restoreRecord(idempotent, engine.deals.restore, (ctx, id) => engine.deals.get(ctx, id, null))
      )
      .handle("timeline", recordPage(engine.deals.timeline))
      .handle("history", recordPage(engine.deals.history))
  })
)
