import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { createRecord, getRecord, listWhole, writeRecord } from "../recordHandlers.js"
import { IdempotentReplies } from "../idempotency.js"

const COLLECTION = "/v1/pipelines"

export const PipelinesLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "pipelines", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      return handlers
        .handle("list", listWhole(engine.pipelines.list))
        .handle("get", getRecord(engine.pipelines.get))
        .handleRaw("create", createRecord(idempotent, COLLECTION, engine.pipelines.create, engine.pipelines.get))
        .handleRaw("update", writeRecord(engine.pipelines.update))
    })
  )
