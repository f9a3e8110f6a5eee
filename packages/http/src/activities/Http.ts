import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { IdempotentReplies } from "../idempotency.js"
import { createRecord, deleteRecord, listRecords, recordPage, restoreRecord, writeRecord } from "../recordHandlers.js"
import { record, respond } from "../replies.js"

const COLLECTION = "/v1/activities"

export const ActivitiesLive = HttpApiBuilder.group(Api, "activities", (handlers) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const idempotent = yield* IdempotentReplies
    return handlers
      .handle("list", listRecords(engine.activities.list))
      .handle("get", ({ params }) =>
        Effect.map(
          Effect.flatMap(Caller, (ctx) => engine.activities.get(ctx, params.id)),
          (found) => respond(record(found))
        )
      )
      .handleRaw("create", createRecord(idempotent, COLLECTION, engine.activities.create, engine.activities.get))
      .handleRaw("update", writeRecord(engine.activities.update))
      .handle("delete", deleteRecord(engine.activities.delete))
      .handle("restore", restoreRecord(idempotent, engine.activities.restore, engine.activities.get))
      .handle("history", recordPage(engine.activities.history))
  })
)
