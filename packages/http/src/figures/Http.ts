import type { EngineService } from "@dealstream/core"
import { Effect } from "effect"
import { Caller } from "../auth/Authentication.js"
import type { RecordRequest, Request } from "../recordHandlers.js"
import { json, respond } from "../replies.js"
import { readQuery } from "../request/queryParams.js"

/** The figures' handlers: each passes its parameters, as sent, to the engine, which checks them. */

export const summaryHandler =
  (pipelines: EngineService["pipelines"]) =>
  ({ params, request }: RecordRequest) =>
    Effect.gen(function* () {
      const query = yield* readQuery(request, ["owner_id", "as_of"])
      return respond(json(yield* pipelines.summary(yield* Caller, params.id, query)))
    })

export const conversionHandler =
  (pipelines: EngineService["pipelines"]) =>
  ({ params, request }: RecordRequest) =>
    Effect.gen(function* () {
      const query = yield* readQuery(request, ["from", "to", "owner_id"])
      return respond(json(yield* pipelines.conversion(yield* Caller, params.id, query)))
    })

export const forecastHandler =
  (deals: EngineService["deals"]) =>
  ({ request }: Request) =>
    Effect.gen(function* () {
      const query = yield* readQuery(request, ["pipeline_id", "owner_id", "interval", "from", "to"])
      return respond(json(yield* deals.forecast(yield* Caller, query)))
    })
