import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { batchDescription, batchInput, BatchResults } from "../batch.js"
import { actionErrors, batchErrors, replayable200, created, createErrors, deleteErrors, listErrors, NoContent, readErrors, restored, single, writeErrors } from "../answers.js"
import { pageOf, securedGroup } from "../documented.js"
import { historyDescription, HistoryEntry } from "../history/schemas.js"
import { contactParams, idempotencyHeader, idParams, ifMatchHeader, pagingParams, searchParams } from "../parameters.js"
import { Contact, ContactInput, ContactPatch } from "./schemas.js"

export class ContactsApi extends securedGroup(
  "contacts",
  HttpApiEndpoint.get("list", "/v1/contacts", {
    query: searchParams,
    success: pageOf(Contact, "ContactPage"),
    error: listErrors
  }).annotate(OpenApi.Description, "Sort fields: created_at, updated_at, email, first_name, last_name and custom fields."),
  HttpApiEndpoint.get("get", "/v1/contacts/:id", {
    params: idParams,
    query: contactParams,
    success: single(Contact),
    error: readErrors
  }),
  HttpApiEndpoint.post("batch", "/v1/contacts/batch", {
    payload: batchInput("Contact", "ContactBatch", "email"),
    headers: idempotencyHeader,
    success: replayable200(BatchResults),
    error: batchErrors
  }).annotate(OpenApi.Description, batchDescription("contacts", "email")),
  HttpApiEndpoint.post("create", "/v1/contacts", {
    payload: ContactInput,
    headers: idempotencyHeader,
    success: created(Contact),
    error: createErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/contacts/:id", {
    params: idParams,
    payload: ContactPatch,
    headers: ifMatchHeader,
    success: single(Contact),
    error: writeErrors
  }),
  HttpApiEndpoint.delete("delete", "/v1/contacts/:id", {
    params: idParams,
    headers: ifMatchHeader,
    success: NoContent,
    error: deleteErrors
  }),
  HttpApiEndpoint.post("restore", "/v1/contacts/:id/restore", {
    params: idParams,
    headers: idempotencyHeader,
    success: restored(Contact),
    error: actionErrors
  }),
  HttpApiEndpoint.get("history", "/v1/contacts/:id/history", {
    params: idParams,
    query: pagingParams,
    success: pageOf(HistoryEntry, "HistoryPage"),
    error: readErrors
  }).annotate(OpenApi.Description, historyDescription("contact"))
) {}
