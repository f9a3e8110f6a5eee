import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { actionErrors, readErrors, replayable200 } from "../answerSchemas.js"
import { securedGroup } from "../documented.js"
import { contactListParams, contactParams, idempotencyHeader, idParams } from "../parameters.js"
import { duplicatesEndpoint, mergeEndpoint, unmergeEndpoint } from "../merge.js"
import { batchEndpoint, recordEndpoints } from "../recordEndpoints.js"
import { Contact, ContactErasure, ContactExport, ContactInput, ContactPatch } from "./schemas.js"

const contacts = recordEndpoints({
  name: "Contact",
  collection: "/v1/contacts",
  merges: true,
  record: Contact,
  input: ContactInput,
  patch: ContactPatch,
  list: {
    query: contactListParams,
    description:
      "Sort fields: created_at, updated_at, email, first_name, last_name and custom fields. `company_id` lists the contacts " +
      "of one company (company_ids is not in the filter grammar)."
  },
  get: {
    query: contactParams,
    description:
      "A company in the trash is left out of company_ids (company_id shows null while it is the primary one) and comes back " +
      "on its restore. A contact created before companies existed keeps the company_id it was given, shown as it is, and " +
      "company_ids [company_id], until either is written."
  }
})

const exportDescription =
  'Everything held about the person (API.md, "Privacy: export and erasure"), in one JSON document read from one consistent ' +
  "state: the contact, its whole history with every value, the activities that link it, the ids of the deals that link it and " +
  "of the companies it links, and the ids of the webhook deliveries whose payloads carried it. For a live contact or one in " +
  "the trash; 404 for one erased or purged."

const eraseDescription =
  "The trash window's purge, now, for a live contact or one in the trash; irreversible. Its documents are removed (it leaves " +
  'every list, search, expand and the trash; its email is free again), the data of its events become `{"redacted": true}` ' +
  "in the log and the change feed, the payloads of its webhook deliveries too (pending ones are cancelled; a replay sends the " +
  "redacted payload), it is taken out of the contact_ids of every deal and activity, live or in the trash (their history " +
  "keeps its id only; an activity that named the person alone is purged with them), and answers stored under an " +
  "Idempotency-Key that showed it are forgotten (a retry is answered from the record: 404) or, a batch's, show `{id, redacted: true}` " +
  "in its place. A `contact.erased` tombstone, `{id}`, is announced to " +
  "webhooks and the feed. What remains: the ids (in the tombstone, in other records' histories, in the deliveries' event ids) " +
  "and the events' types and times. Each record is its own commit, deliveries a hundred per commit, so a contact with a long " +
  "history takes longer but never holds one long transaction. 200 with the counts; 404 for a contact already erased or purged. No body."

export class ContactsApi extends securedGroup(
  "contacts",
  contacts.list,
  contacts.export,
  duplicatesEndpoint({
    name: "Contact",
    type: "contact",
    collection: "/v1/contacts",
    rules: [
      ["email", "the same email, trimmed and lowercased; never listed, since a live contact's email is unique (a second is refused 409)"],
      ["phone", "the same digits of the phone, at least 7"],
      ["name_company", "the same first and last name, trimmed and lowercased, and a company in common"]
    ]
  }),
  contacts.get,
  batchEndpoint({ name: "Contact", collection: "/v1/contacts" }, "email"),
  contacts.create,
  contacts.update,
  contacts.delete,
  contacts.restore,
  contacts.history,
  mergeEndpoint(
    { name: "Contact", type: "contact", collection: "/v1/contacts", linking: ["deal_ids", "activity_ids", "company_ids"] },
    Contact
  ),
  unmergeEndpoint({ name: "Contact", type: "contact", collection: "/v1/contacts" }, Contact),
  HttpApiEndpoint.get("exportPerson", "/v1/contacts/:id/export", {
    params: idParams,
    success: ContactExport,
    error: readErrors
  }).annotate(OpenApi.Description, exportDescription),
  HttpApiEndpoint.post("erase", "/v1/contacts/:id/erase", {
    params: idParams,
    headers: idempotencyHeader,
    success: replayable200(ContactErasure),
    error: actionErrors
  }).annotate(OpenApi.Description, eraseDescription)
) {}
