import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { idempotencyHeader, idParam, ifMatchHeader, optionalText, pageOf, queryParams, securedGroup } from "../documented.js"
import { Contact, ContactInput, ContactPatch } from "./schemas.js"

export class ContactsApi extends securedGroup("contacts")
  .add(
    HttpApiEndpoint.get("list", "/v1/contacts")
      .setUrlParams(Schema.Struct(queryParams))
      .addSuccess(pageOf(Contact, "ContactPage"))
      .annotate(OpenApi.Description, "Sort fields: created_at, updated_at, email, first_name, last_name and custom fields.")
  )
  .add(
    HttpApiEndpoint.get("get")`/v1/contacts/${idParam}`
      .setUrlParams(Schema.Struct({ expand: optionalText("Comma-separated: `deals`, `activities`.") }))
      .addSuccess(Contact)
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/contacts")
      .setPayload(ContactInput)
      .setHeaders(idempotencyHeader)
      .addSuccess(Contact, { status: 201 })
  )
  .add(
    HttpApiEndpoint.patch("update")`/v1/contacts/${idParam}`
      .setPayload(ContactPatch)
      .setHeaders(ifMatchHeader)
      .addSuccess(Contact)
  )
  .add(
    HttpApiEndpoint.del("delete")`/v1/contacts/${idParam}`
      .setHeaders(ifMatchHeader)
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.post("restore")`/v1/contacts/${idParam}/restore`
      .setHeaders(idempotencyHeader)
      .addSuccess(Contact)
  )
{}
