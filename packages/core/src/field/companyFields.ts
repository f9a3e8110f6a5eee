import { Result } from "effect"
import type { FieldCheck } from "./checks.js"
import { integerFrom, text, trimmedText } from "./checks.js"
import type { RecordFields } from "./table.js"
import { recordFieldTable, nameField, STANDARD_TEXT_MAX } from "./table.js"

const DOMAIN_MAX = 253
// Labels of letters, digits and inner hyphens, at least two of them: `acme.com`, `eu.acme.co.uk`.
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/

/** A host name, lower-cased and trimmed: two spellings of one domain are one company's. */
const domain: FieldCheck = (value) => {
  if (typeof value !== "string") return Result.fail("must be a string")
  const lowered = value.trim().toLowerCase()
  if (lowered.length > DOMAIN_MAX) return Result.fail(`must be at most ${DOMAIN_MAX} characters`)
  return DOMAIN.test(lowered) ? Result.succeed(lowered) : Result.fail("must be a domain name such as acme.com")
}

const line = text(STANDARD_TEXT_MAX)

/** A company's fields. A new standard field is one row here. */
export const companyFields: RecordFields = {
  object: "company",
  standard: recordFieldTable("comp", [
    nameField({ description: "The company's name.", examples: ["ACME Corporation"] }),
    {
      name: "domain",
      type: "text",
      check: domain,
      nullable: true,
      sortable: true,
      searchable: true,
      wholeWord: true,
      description: "Its web domain, lower-cased; unique among the workspace's live companies.",
      examples: ["acme.com"]
    },
    { name: "industry", type: "text", check: line, nullable: true, description: "Industry, free form." },
    { name: "size", type: "number", check: integerFrom(0), nullable: true, description: "Number of employees, an integer of at least 0." },
    { name: "owner_id", type: "id", check: line, nullable: true, description: "The user who owns the company." }
  ]),
  computed: ["contact_ids", "deal_ids", "contacts", "deals", "activities"]
}
