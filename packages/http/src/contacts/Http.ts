import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { IdempotentReplies } from "../idempotency.js"
import { handleRecordResource, recordResourceHandlers } from "../recordGroups.js"
import { getExpandable } from "../recordHandlers.js"
import { Contact } from "./schemas.js"

export const ContactsLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "contacts", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const { contacts } = engine
      const get = getExpandable(contacts.get, contacts.getAsOf)
      return handleRecordResource(
        handlers,
        recordResourceHandlers(yield* IdempotentReplies, "/v1/contacts", contacts, get, { engine, object: "contact", record: Contact })
      )
    })
  )
