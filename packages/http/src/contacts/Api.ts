import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  idempotencyHeader,
  idParams,
  NoContent,
  ifMatchHeader,
  optionalText,
  pageOf,
  queryParams,
  securedErrors,
  securedGroup
} from "../documented.js"
import { Contact, ContactInput, ContactPatch } from "./schemas.js"

export class ContactsApi extends securedGroup(
  "contacts",
  HttpApiEndpoint.get("list", "/v1/contacts", {
    query: queryParams,
    success: pageOf(Contact, "ContactPage"),
    error: securedErrors
  }).annotate(OpenApi.Description, "Sort fields: created_at, updated_at, email, first_name, last_name and custom fields."),
  HttpApiEndpoint.get("get", "/v1/contacts/:id", {
    params: idParams,
    query: { expand: optionalText("Comma-separated: `deals`, `activities`.") },
    success: Contact,
    error: securedErrors
  }),
  HttpApiEndpoint.post("create", "/v1/contacts", {
    payload: ContactInput,
    headers: idempotencyHeader,
    success: Contact.pipe(HttpApiSchema.status(201)),
    error: securedErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/contacts/:id", {
    params: idParams,
    payload: ContactPatch,
    headers: ifMatchHeader,
    success: Contact,
    error: securedErrors
  }),
  HttpApiEndpoint.delete("delete", "/v1/contacts/:id", {
    params: idParams,
    headers: ifMatchHeader,
    success: NoContent,
    error: securedErrors
  }),
  HttpApiEndpoint.post("restore", "/v1/contacts/:id/restore", {
    params: idParams,
    headers: idempotencyHeader,
    success: Contact,
    error: securedErrors
  })
) {}
