import { idList, text, timestamp, trimmedText, oneOf } from "./checks.js"
import type { RecordFields } from "./table.js"
import { recordFieldTable, STANDARD_TEXT_MAX } from "./table.js"

export const activityTypes = ["note", "task", "call", "meeting", "email"] as const
export type ActivityType = (typeof activityTypes)[number]

/** How many records of each kind one activity may be linked to. */
export const ACTIVITY_LINKS_MAX = 100

/** A note's or an email's body may be long; it is still one value of a document. */
export const ACTIVITY_BODY_MAX = 100_000

/** An activity's fields. A new standard field is one row here. */
export const activityFields: RecordFields = {
  object: "activity",
  standard: recordFieldTable("act", [
    {
      name: "type",
      type: "enum",
      check: oneOf(activityTypes),
      required: true,
      options: activityTypes,
      description: "What kind of activity it is."
    },
    {
      name: "subject",
      type: "text",
      check: trimmedText(1, STANDARD_TEXT_MAX),
      required: true,
      description: "A one-line summary.",
      examples: ["Call about the renewal"]
    },
    { name: "body", type: "text", check: text(ACTIVITY_BODY_MAX), nullable: true, filterable: false, description: "Free text." },
    { name: "due_at", type: "timestamp", check: timestamp, nullable: true, sortable: true, description: "When a task or meeting is due." },
    {
      name: "done_at",
      type: "timestamp",
      nullable: true,
      description: 'When it was marked done (PATCH `{"done": true}`); null while open.'
    },
    { name: "owner_id", type: "id", check: text(STANDARD_TEXT_MAX), nullable: true, description: "The user who owns the activity." },
    {
      name: "contact_ids",
      type: "id_array",
      check: idList("contact", ACTIVITY_LINKS_MAX, STANDARD_TEXT_MAX),
      absent: [],
      filterable: false,
      description: "Linked live contacts."
    },
    {
      name: "deal_ids",
      type: "id_array",
      check: idList("deal", ACTIVITY_LINKS_MAX, STANDARD_TEXT_MAX),
      absent: [],
      filterable: false,
      description: "Linked live deals."
    },
    {
      name: "company_ids",
      type: "id_array",
      check: idList("company", ACTIVITY_LINKS_MAX, STANDARD_TEXT_MAX),
      absent: [],
      filterable: false,
      description: "Linked live companies."
    }
  ]),
  computed: ["done"]
}
