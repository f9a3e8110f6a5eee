import { Result } from "effect"
import type { FieldCheck } from "./checks.js"
import { date, finiteNumber, id, oneOf, text } from "./checks.js"
import type { RecordFields } from "./table.js"
import { recordFieldTable, nameField, STANDARD_TEXT_MAX } from "./table.js"

export const dealStatuses = ["open", "won", "lost"] as const
export type DealStatus = (typeof dealStatuses)[number]

export const CONTACT_IDS_MAX = 100

const CURRENCY = /^[A-Z]{3}$/
// Read once: the runtime's ICU list of ISO 4217 codes, so `XYZ` is refused and not just shaped right.
const knownCurrencies: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"))

const currency: FieldCheck = (value) =>
  typeof value === "string" && CURRENCY.test(value) && knownCurrencies.has(value)
    ? Result.succeed(value)
    : Result.fail("must be an ISO 4217 currency code of three uppercase letters")

/** Element problems are reported for the whole key; repeats are dropped, first occurrence kept. */
const contactIds: FieldCheck = (value) => {
  if (!Array.isArray(value)) return Result.fail("must be an array of contact ids")
  const bad = value.findIndex((item) => typeof item !== "string" || item.length === 0 || item.length > STANDARD_TEXT_MAX)
  if (bad >= 0) return Result.fail(`must hold only contact ids (element ${bad} is not one)`)
  const unique = [...new Set(value as ReadonlyArray<string>)]
  return unique.length > CONTACT_IDS_MAX ? Result.fail(`must hold at most ${CONTACT_IDS_MAX} contact ids`) : Result.succeed(unique)
}

const recordId = id(STANDARD_TEXT_MAX)

export const LOST_REASON_MAX = 500

const probability: FieldCheck = (value) =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1
    ? Result.succeed(value)
    : Result.fail("must be a number from 0 to 1")

/** A deal's fields. A new standard field is one row here. */
export const dealFields: RecordFields = {
  object: "deal",
  standard: recordFieldTable("deal", [
    nameField({ description: null, examples: ["ACME renewal 2027"] }),
    {
      name: "pipeline_id",
      type: "id",
      check: recordId,
      required: true,
      idPrefix: "pipe",
      description: "The deal's pipeline. A change without stage_id moves the deal to the new pipeline's first stage."
    },
    {
      name: "stage_id",
      type: "id",
      check: recordId,
      absent: null,
      idPrefix: "stage",
      description: "A stage of the pipeline; defaults to its first stage. A change moves the deal and adds a timeline entry."
    },
    { name: "value", type: "number", check: finiteNumber, nullable: true, sortable: true, description: "Deal value." },
    {
      name: "currency",
      type: "text",
      check: currency,
      nullable: true,
      description: "ISO 4217 currency of value.",
      examples: ["EUR", "USD"]
    },
    { name: "expected_close_date", type: "date", check: date, nullable: true, sortable: true, description: "Expected close date." },
    { name: "owner_id", type: "id", check: text(STANDARD_TEXT_MAX), nullable: true, description: "The user who owns the deal." },
    {
      name: "contact_ids",
      type: "id_array",
      check: contactIds,
      absent: [],
      filterable: false,
      description: "Associated live contacts."
    },
    {
      name: "company_id",
      type: "id",
      check: recordId,
      nullable: true,
      idPrefix: "comp",
      description:
        "The deal's company, a live company; null while it is in the trash (a PATCH of null then keeps it). " +
        "List with `GET /v1/deals?company_id=`."
    },
    {
      name: "status",
      type: "enum",
      check: oneOf(dealStatuses),
      // Left out (or null) on creation, the deal's stage decides it: open unless it is a closing stage.
      absent: null,
      options: dealStatuses,
      description:
        "open, won or lost; it follows the stage. Entering a stage whose outcome is won or lost sets it (and closed_at); " +
        "leaving such a stage for an open one reopens the deal. Set to won or lost, the deal moves into the pipeline's " +
        "first stage of that outcome (a stage move like any other: timeline entry, webhook, stage rules); set to open, a " +
        "deal in a closing stage moves back to the stage it was in before it closed (else the first open stage). In a " +
        "pipeline without such a stage only the status changes. A stage_id that contradicts it is 400 at status."
    },
    {
      name: "probability",
      type: "number",
      check: probability,
      nullable: true,
      description: "How likely the deal is to be won, from 0 to 1; null: its stage's probability."
    },
    {
      name: "lost_reason",
      type: "text",
      check: text(LOST_REASON_MAX),
      nullable: true,
      description:
        "Why the deal was lost; may be set only while it is, or with the write that loses it. A move into a lost stage " +
        "takes the move's reason unless the body gives lost_reason; reopening clears it."
    },
    {
      name: "closed_at",
      type: "timestamp",
      nullable: true,
      sortable: true,
      description: "When the deal was last won or lost (read-only); null while it is open. List with closed_from and closed_to."
    },
    {
      name: "stage_entered_at",
      type: "timestamp",
      nullable: true,
      description:
        "When the deal entered its stage (read-only): its creation or its last stage move. Null only on deals last written " +
        "before this field existed, until they are written again or `dealstream rebuild` runs."
    }
  ]),
  // weighted_value is derived when the deal is shown, from its stage's probability as the pipeline has it now.
  computed: ["weighted_value", "companies", "activities"]
}
