import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { batchDescription, batchInput, BatchResults } from "../batch.js"
import {
  actionErrors,
  batchErrors,
  replayable200,
  created,
  createErrors,
  deleteErrors,
  listErrors,
  NoContent,
  readErrors,
  restored,
  single,
  writeErrors
} from "../answerSchemas.js"
import { pageOf, securedGroup } from "../documented.js"
import { historyDescription, HistoryEntry } from "../history/schemas.js"
import { contactListParams, contactParams, idempotencyHeader, idParams, ifMatchHeader, pagingParams } from "../parameters.js"
import { Contact, ContactInput, ContactPatch } from "./schemas.js"

export class ContactsApi extends securedGroup(
  "contacts",
  HttpApiEndpoint.get("list", "/v1/contacts", {
    query: contactListParams,
    success: pageOf(Contact, "ContactPage"),
    error: listErrors
  }).annotate(
    OpenApi.Description,
    "Sort fields: created_at, updated_at, email, first_name, last_name and custom fields. `company_id` lists the contacts " +
      "of one company (company_ids is not in the filter grammar)."
  ),
  HttpApiEndpoint.get("get", "/v1/contacts/:id", {
    params: idParams,
    query: contactParams,
    success: single(Contact),
    error: readErrors
  }).annotate(
    OpenApi.Description,
    "A company in the trash is left out of company_ids (company_id shows null while it is the primary one) and comes back " +
      "on its restore. A contact created before companies existed keeps the company_id it was given, shown as it is, and " +
      "company_ids [company_id], until either is written."
  ),
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
