import { Result } from "effect"
import type { FieldCheck } from "./checks.js"
import { date, finiteNumber, id, oneOf, text, trimmedText } from "./checks.js"
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
    { name: "status", type: "enum", check: oneOf(dealStatuses), absent: "open", options: dealStatuses }
  ]),
  computed: ["companies", "activities"]
}
