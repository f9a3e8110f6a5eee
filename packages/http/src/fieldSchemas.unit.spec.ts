import { describe, expect, it } from "@effect/vitest"
import { activityFields, companyFields, contactFields, dealFields, fieldTable, type RecordFields } from "@dealstream/core"
import { Result, Schema } from "effect"
import { Activity, ActivityPatch } from "./activities/schemas.js"
import { Company, CompanyInput } from "./companies/schemas.js"
import { Contact, ContactInput } from "./contacts/schemas.js"
import { Deal, DealPatch } from "./deals/schemas.js"
import { answerFields, createFields, patchFields } from "./fieldSchemas.js"

/** The JSON Schema of `schema`, its `$ref` followed when it has an identifier. */
const jsonSchemaOf = (schema: Schema.Top): Record<string, any> => {
  const { definitions, schema: root } = Schema.toJsonSchemaDocument(schema) as { definitions: Record<string, any>; schema: any }
  return typeof root.$ref === "string" ? definitions[root.$ref.replace("#/$defs/", "")] : root
}

const check = () => Result.succeed(null)

const ticket: RecordFields = {
  object: "contact",
  standard: fieldTable([
    { name: "id", type: "id", idPrefix: "tkt" },
    { name: "subject", type: "text", check, required: true, description: "What it is about.", examples: ["Refund"] },
    { name: "due", type: "date", check, nullable: true, description: "When it is due." },
    { name: "state", type: "enum", check, options: ["open", "closed"] },
    { name: "created_at", type: "timestamp" }
  ]),
  computed: ["replies"]
}

describe("schemas read off a field table", () => {
  it("documents a new record's body: writable fields in table order, the required ones required", () => {
    const doc = jsonSchemaOf(Schema.Struct(createFields(ticket.standard)))
    expect(Object.keys(doc["properties"])).toEqual(["subject", "due", "state"])
    expect(doc["required"]).toEqual(["subject"])
    expect(doc["properties"]["subject"]).toEqual({ type: "string", description: "What it is about.", examples: ["Refund"] })
    expect(doc["properties"]["due"]).toEqual({
      anyOf: [{ type: "string", description: "YYYY-MM-DD", format: "date", examples: ["2026-12-31"] }, { type: "null" }],
      description: "When it is due."
    })
    expect(doc["properties"]["state"]).toEqual({ type: "string", enum: ["open", "closed"] })
  })

  it("documents a patch with every writable field optional", () => {
    const doc = jsonSchemaOf(Schema.Struct(patchFields(ticket.standard)))
    expect(Object.keys(doc["properties"])).toEqual(["subject", "due", "state"])
    expect(doc["required"] ?? []).toEqual([])
  })

  it("documents an answer with every field, the computed ones before the trailing read-only ones", () => {
    const doc = jsonSchemaOf(Schema.Struct(answerFields(ticket.standard, { replies: Schema.optionalKey(Schema.Array(Schema.String)) })))
    expect(Object.keys(doc["properties"])).toEqual(["id", "subject", "due", "state", "replies", "created_at"])
    expect(doc["required"]).toEqual(["id", "subject", "due", "state", "created_at"])
    expect(doc["properties"]["id"]).toEqual({ type: "string", examples: ["tkt_01jd7x4c2m8k9q3r5t6v7w8y9z"] })
    expect(doc["properties"]["created_at"]["format"]).toEqual("date-time")
  })

  it("gives each record type every field of its table, and nothing else besides the computed ones", () => {
    const names = (record: RecordFields) => record.standard.map((f) => f.name)
    const writable = (record: RecordFields) => record.standard.filter((f) => f.check !== null).map((f) => f.name)
    const stored = (schema: Schema.Top, record: RecordFields) =>
      Object.keys(jsonSchemaOf(schema)["properties"]).filter((k) => !record.computed.includes(k))
    expect(stored(Contact, contactFields)).toEqual(names(contactFields))
    expect(Object.keys(jsonSchemaOf(ContactInput)["properties"])).toEqual(writable(contactFields))
    expect(stored(Deal, dealFields)).toEqual(names(dealFields))
    expect(Object.keys(jsonSchemaOf(DealPatch)["properties"])).toEqual(writable(dealFields))
    expect(stored(Company, companyFields)).toEqual(names(companyFields))
    expect(Object.keys(jsonSchemaOf(CompanyInput)["properties"])).toEqual(writable(companyFields))
    expect(stored(Activity, activityFields)).toEqual(names(activityFields))
    // `done` is the one key a body may send that no field holds: it sets done_at.
    expect(Object.keys(jsonSchemaOf(ActivityPatch)["properties"])).toEqual([...writable(activityFields), "done"])
  })
})
