import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { batchRecords } from "../batch.js"
import { getRecordNowOrThen, recordPage, standardHandlers, writeRecord } from "../recordHandlers.js"
import { IdempotentReplies } from "../idempotency.js"

const COLLECTION = "/v1/deals"

export const DealsLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "deals", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      const records = standardHandlers(idempotent, COLLECTION, engine.deals, (ctx, id) => engine.deals.get(ctx, id, null))
      return handlers
        .handle("list", records.list)
        .handle("get", getRecordNowOrThen(engine.deals.get, engine.deals.getAsOf))
        .handleRaw("batch", batchRecords(idempotent, engine.deals.batch))
        .handleRaw("create", records.create)
        .handleRaw("update", records.update)
        .handleRaw("moveStage", writeRecord(engine.deals.moveStage))
        .handle("delete", records.delete)
        .handle("restore", records.restore)
        .handle("timeline", recordPage(engine.deals.timeline))
        .handle("history", records.history)
    })
  )
