import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { batchRecords } from "../batch.js"
import { getRecordNowOrThen, standardHandlers } from "../recordHandlers.js"
import { IdempotentReplies } from "../idempotency.js"

const COLLECTION = "/v1/contacts"

export const ContactsLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "contacts", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      const records = standardHandlers(idempotent, COLLECTION, engine.contacts, (ctx, id) => engine.contacts.get(ctx, id, null))
      return handlers
        .handle("list", records.list)
        .handle("get", getRecordNowOrThen(engine.contacts.get, engine.contacts.getAsOf))
        .handleRaw("batch", batchRecords(idempotent, engine.contacts.batch))
        .handleRaw("create", records.create)
        .handleRaw("update", records.update)
        .handle("delete", records.delete)
        .handle("restore", records.restore)
        .handle("history", records.history)
    })
  )
