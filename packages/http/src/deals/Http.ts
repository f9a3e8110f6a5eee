import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { createRecord, deleteRecord, getRecord, listRecords, recordPage, restoreRecord, writeRecord } from "../recordHandlers.js"
import { IdempotentReplies } from "../idempotency.js"

const COLLECTION = "/v1/deals"

export const DealsLive = HttpApiBuilder.group(Api, "deals", (handlers) =>
  Effect.gen(function*() {
    const engine = yield* Engine
    const idempotent = yield* IdempotentReplies
    return handlers
      .handle("list", listRecords(engine.deals.list))
      .handle("get", getRecord(engine.deals.get))
      .handleRaw("create", createRecord(idempotent, COLLECTION, engine.deals.create, engine.deals.get))
      .handleRaw("update", writeRecord(engine.deals.update))
      .handleRaw("moveStage", writeRecord(engine.deals.moveStage))
      .handle("delete", deleteRecord(engine.deals.delete))
      .handle("restore", restoreRecord(idempotent, engine.deals.restore, engine.deals.get))
      .handle("timeline", recordPage(engine.deals.timeline))
      .handle("history", recordPage(engine.deals.history))
  }))
