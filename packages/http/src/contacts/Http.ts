import { Engine } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { IdempotentReplies } from "../idempotency.js"
import { handleRecordResource, recordResourceHandlers } from "../recordGroups.js"
import { getExpandable, listRecords, postedAction, unconditional } from "../recordHandlers.js"
import { readQuery } from "../request/queryParams.js"
import { mergeRecords } from "../merge.js"
import { json, respond } from "../replies.js"
import { Caller } from "../auth/Authentication.js"
import { Contact } from "./schemas.js"

export const ContactsLive = (api: ServedApi) =>
  HttpApiBuilder.group(api, "contacts", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const { contacts } = engine
      const get = getExpandable(contacts.get, contacts.getAsOf)
      const idempotent = yield* IdempotentReplies
      return (
        handleRecordResource(
          handlers,
          recordResourceHandlers(idempotent, "/v1/contacts", contacts, get, { engine, object: "contact", record: Contact })
        )
          .handle("duplicates", listRecords(contacts.duplicates))
          .handleRaw("merge", mergeRecords(idempotent, contacts.merge))
          .handleRaw("unmerge", mergeRecords(idempotent, contacts.unmerge))
          .handle("exportPerson", ({ params, request }) =>
            Effect.gen(function* () {
              yield* readQuery(request, [])
              return respond(json(yield* contacts.exportPerson(yield* Caller, params.id)))
            })
          )
          // Under an Idempotency-Key the counts are stored and replayed; a retry whose answer was lost
          // cannot count again (the contact is gone), so it is a conflict, as for any such write.
          .handle("erase", ({ params, request }) =>
            postedAction(idempotent, request, (ctx) => Effect.map(unconditional(contacts.erase(ctx, params.id)), (erased) => json(erased)))
          )
      )
    })
  )
