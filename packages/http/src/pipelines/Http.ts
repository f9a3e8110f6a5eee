import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { conversionHandler, summaryHandler } from "../figures/Http.js"
import { IdempotentReplies } from "../idempotency.js"
import { handleCollection, wholeCollectionHandlers } from "../recordGroups.js"

export const PipelinesLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "pipelines", (handlers) =>
    Effect.gen(function* () {
      const { pipelines } = yield* Engine
      return handleCollection(handlers, wholeCollectionHandlers(yield* IdempotentReplies, "/v1/pipelines", pipelines))
        .handleRaw("summary", summaryHandler(pipelines))
        .handleRaw("conversion", conversionHandler(pipelines))
    })
  )
