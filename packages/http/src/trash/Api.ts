import { HttpApiEndpoint } from "effect/http-api"
import { Schema } from "effect"
import { listErrors } from "../answerSchemas.js"
import { pageOf, securedGroup, Timestamp } from "../documented.js"
import { trashParams } from "../parameters.js"

/** The trash of the record types named `types` (the served ones' names: core's recordTypeSet). */
export const trashGroup = (types: ReadonlyArray<string>) => {
  const TrashItem = Schema.Struct({
    type: Schema.Literals(types),
    id: Schema.String,
    deleted_at: Timestamp,
    purge_at: Timestamp.annotate({ description: "30 days after deleted_at; restore (or, for a merged record, unmerge) works until then." }),
    merged_into: Schema.optionalKey(Schema.String).annotate({
      description: "Present for a record merged into another (POST /v1/contacts/:id/merge): the survivor's id."
    }),
    record: Schema.Record(Schema.String, Schema.Unknown).annotate({
      description: "The record as it was when deleted."
    })
  }).annotate({ identifier: "TrashItem" })
  return securedGroup(
    "trash",
    HttpApiEndpoint.get("list", "/v1/trash", {
      query: trashParams(types),
      success: pageOf(TrashItem, "TrashPage"),
      error: listErrors
    })
  )
}
