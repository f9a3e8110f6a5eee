import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { IdempotentReplies } from "../idempotency.js"
import { standardHandlers } from "../recordHandlers.js"
import { record, respond } from "../replies.js"
import { Activity } from "./schemas.js"

const COLLECTION = "/v1/activities"

export const ActivitiesLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "activities", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      const records = standardHandlers(idempotent, COLLECTION, engine.activities, engine.activities.get, {
        engine,
        object: "activity",
        record: Activity
      })
      return handlers
        .handle("list", records.list)
        .handle("get", ({ params }) =>
          Effect.map(
            Effect.flatMap(Caller, (ctx) => engine.activities.get(ctx, params.id)),
            (found) => respond(record(found))
          )
        )
        .handleRaw("create", records.create)
        .handleRaw("update", records.update)
        .handle("delete", records.delete)
        .handle("restore", records.restore)
        .handle("history", records.history)
        .handle("export", records.export)
    })
  )
