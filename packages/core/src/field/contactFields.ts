import { Result } from "effect"
import type { FieldCheck } from "./checks.js"
import { idList, text } from "./checks.js"
import type { RecordFields } from "./table.js"
import { recordFieldTable, STANDARD_TEXT_MAX } from "./table.js"

const EMAIL_MAX = 254
// The WHATWG form-validation pattern, plus a dot in the domain: `a@localhost` is never a CRM contact.
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/

const email: FieldCheck = (value) => {
  if (typeof value !== "string") return Result.fail("must be a string")
  const trimmed = value.trim()
  if (trimmed.length > EMAIL_MAX) return Result.fail(`must be at most ${EMAIL_MAX} characters`)
  return EMAIL.test(trimmed) ? Result.succeed(trimmed) : Result.fail("must be a valid email address")
}

const line = text(STANDARD_TEXT_MAX)

export const COMPANY_IDS_MAX = 100

/** A contact's fields. A new standard field is one row here. */
export const contactFields: RecordFields = {
  object: "contact",
  standard: recordFieldTable("con", [
    {
      name: "email",
      type: "text",
      check: email,
      required: true,
      sortable: true,
      searchable: true,
      wholeWord: true,
      description: "A valid address, unique among the workspace's live contacts (case-insensitive).",
      examples: ["ada@example.com"]
    },
    { name: "first_name", type: "text", check: line, nullable: true, sortable: true, searchable: true, description: "First name." },
    { name: "last_name", type: "text", check: line, nullable: true, sortable: true, searchable: true, description: "Last name." },
    { name: "phone", type: "text", check: line, nullable: true, searchable: true, description: "Phone number, free form." },
    { name: "title", type: "text", check: line, nullable: true, searchable: true, description: "Job title." },
    {
      name: "company_id",
      type: "id",
      check: line,
      nullable: true,
      idPrefix: "comp",
      description:
        "The contact's primary company, a live company (`comp_…`); null while it is in the trash. " +
        "Given alone it sets company_ids to [company_id]; given with company_ids it must be one of them."
    },
    {
      name: "company_ids",
      type: "id_array",
      check: idList("company", COMPANY_IDS_MAX, STANDARD_TEXT_MAX),
      absent: [],
      filterable: false,
      description:
        "Every company of the contact, live ones only, the primary first. Given alone it sets company_id to its " +
        "first element; a patch keeps the linked companies that are in the trash. List with `GET /v1/contacts?company_id=`."
    },
    { name: "source", type: "text", check: line, nullable: true, description: "Where the contact came from, e.g. `webinar`." },
    { name: "owner_id", type: "id", check: line, nullable: true, description: "The user who owns the contact." }
  ]),
  computed: ["deal_ids", "deals", "companies", "activities"]
}
