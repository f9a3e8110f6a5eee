import { HttpApiEndpoint } from "@effect/platform"
import { Schema } from "effect"
import { optionalText, pageOf, pagingParams, securedGroup, Timestamp } from "../documented.js"

export const TrashItem = Schema.Struct({
  type: Schema.Literal("contact", "deal"),
  id: Schema.String,
  deleted_at: Timestamp,
  purge_at: Timestamp.annotations({ description: "30 days after deleted_at; restore works until then." }),
  record: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "The record as it was when deleted."
  })
}).annotations({ identifier: "TrashItem" })

export class TrashApi extends securedGroup("trash")
  .add(
    HttpApiEndpoint.get("list", "/v1/trash")
      .setUrlParams(Schema.Struct({ type: optionalText("contact or deal (required)."), ...pagingParams }))
      .addSuccess(pageOf(TrashItem, "TrashPage"))
  )
{}
