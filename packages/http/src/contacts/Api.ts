import { securedGroup } from "../documented.js"
import { contactListParams, contactParams } from "../parameters.js"
import { batchEndpoint, recordEndpoints } from "../recordEndpoints.js"
import { Contact, ContactInput, ContactPatch } from "./schemas.js"

const contacts = recordEndpoints({
  name: "Contact",
  collection: "/v1/contacts",
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

export class ContactsApi extends securedGroup(
  "contacts",
  contacts.list,
  contacts.export,
  contacts.get,
  batchEndpoint({ name: "Contact", collection: "/v1/contacts" }, "email"),
  contacts.create,
  contacts.update,
  contacts.delete,
  contacts.restore,
  contacts.history
) {}
