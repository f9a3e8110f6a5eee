import { Engine, ValidationError } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { batchRecords } from "../batch.js"
import { Caller } from "../auth/Authentication.js"
import { createRecord, deleteRecord, listRecords, recordPage, restoreRecord, writeRecord } from "../recordHandlers.js"
import { IdempotentReplies } from "../idempotency.js"
import { readQuery } from "../request/queryParams.js"
import { record, respond } from "../replies.js"

const COLLECTION = "/v1/contacts"

export const ContactsLive = HttpApiBuilder.group(Api, "contacts", (handlers) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const idempotent = yield* IdempotentReplies
    return handlers
      .handle("list", listRecords(engine.contacts.list))
      .handle("get", ({ params, request }) =>
        Effect.gen(function* () {
          const query = yield* readQuery(request, ["expand", "as_of"])
          const ctx = yield* Caller
          if (query["as_of"] === undefined) return respond(record(yield* engine.contacts.get(ctx, params.id, query["expand"] ?? null)))
          if (query["expand"] !== undefined) return yield* ValidationError.at("as_of", "cannot be combined with expand")
          return respond(record(yield* engine.contacts.getAsOf(ctx, params.id, query["as_of"])))
        })
      )
      .handleRaw("batch", batchRecords(idempotent, engine.contacts.batch))
      .handleRaw(
        "create",
        createRecord(idempotent, COLLECTION, engine.contacts.create, (ctx, id) => engine.contacts.get(ctx, id, null))
      )
      .handleRaw("update", writeRecord(engine.contacts.update))
      .handle("delete", deleteRecord(engine.contacts.delete))
      .handle(
        "restore",
        restoreRecord(idempotent, engine.contacts.restore, (ctx, id) => engine.contacts.get(ctx, id, null))
      )
      .handle("history", recordPage(engine.contacts.history))
  })
)
