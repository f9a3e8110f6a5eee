import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { forecastHandler } from "../figures/Http.js"
import { IdempotentReplies } from "../idempotency.js"
import { handleRecordResource, recordResourceHandlers } from "../recordGroups.js"
import { getExpandable, recordPage, writeRecord } from "../recordHandlers.js"
import { Deal } from "./schemas.js"

export const DealsLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "deals", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const { deals } = engine
      const get = getExpandable(deals.get, deals.getAsOf)
      return handleRecordResource(
        handlers,
        recordResourceHandlers(yield* IdempotentReplies, "/v1/deals", deals, get, { engine, object: "deal", record: Deal })
      )
        .handleRaw("moveStage", writeRecord(deals.moveStage))
        .handle("timeline", recordPage(deals.timeline))
        .handleRaw("forecast", forecastHandler(deals))
    })
  )
