import { recordTypes } from "@dealstream/core"
import { HttpApiEndpoint } from "effect/http-api"
import { Schema } from "effect"
import { listErrors } from "../answerSchemas.js"
import { pageOf, securedGroup, Timestamp } from "../documented.js"
import { trashParams } from "../parameters.js"

export const TrashItem = Schema.Struct({
  type: Schema.Literals(recordTypes),
  id: Schema.String,
  deleted_at: Timestamp,
  purge_at: Timestamp.annotate({ description: "30 days after deleted_at; restore works until then." }),
  record: Schema.Record(Schema.String, Schema.Unknown).annotate({
    description: "The record as it was when deleted."
  })
}).annotate({ identifier: "TrashItem" })

export class TrashApi extends securedGroup(
  "trash",
  HttpApiEndpoint.get("list", "/v1/trash", {
    query: trashParams,
    success: pageOf(TrashItem, "TrashPage"),
    error: listErrors
  })
) {}
