import { describe, expect, it } from "@effect/vitest"
import type { CustomFieldDefinition } from "../field/custom.js"
import { catalogOf, contactStandardFields, dealStandardFields, fieldInfo } from "./fields.js"

// name, type and the capabilities the query language had for each standard field before the
// field tables existed: f filterable, s sortable, w searchable (words), 1 whole value a word.
const capabilities = (fields: ReadonlyArray<ReturnType<typeof fieldInfo>>) =>
  fields.map(
    (f) => `${f.name} ${f.type} ${f.filterable ? "f" : ""}${f.sortable ? "s" : ""}${f.searchable ? "w" : ""}${f.wholeWord ? "1" : ""}`
  )

describe("the query catalogs read off the field tables", () => {
  it("give contacts their fields and capabilities", () => {
    expect(capabilities(contactStandardFields)).toEqual([
      "id id f",
      "email text fsw1",
      "first_name text fsw",
      "last_name text fsw",
      "phone text fw",
      "title text fw",
      "company_id id f",
      "company_ids id_array ",
      "source text f",
      "owner_id id f",
      "created_at timestamp fs",
      "updated_at timestamp fs"
    ])
    expect(contactStandardFields.every((f) => !f.custom && f.options === null)).toBe(true)
  })

  it("give deals theirs, the status with its options", () => {
    expect(capabilities(dealStandardFields)).toEqual([
      "id id f",
      "name text fsw",
      "pipeline_id id f",
      "stage_id id f",
      "value number fs",
      "currency text f",
      "expected_close_date date fs",
      "owner_id id f",
      "contact_ids id_array ",
      "company_id id f",
      "status enum f",
      "probability number f",
      "lost_reason text f",
      "closed_at timestamp fs",
      "stage_entered_at timestamp f",
      "created_at timestamp fs",
      "updated_at timestamp fs"
    ])
    expect(dealStandardFields.find((f) => f.name === "status")?.options).toEqual(["open", "won", "lost"])
  })

  it("add the workspace's custom fields of that object, never over a standard one", () => {
    const at = "2026-01-01T00:00:00.000Z"
    const defs: ReadonlyArray<CustomFieldDefinition> = [
      { object: "deal", key: "region", label: "Region", type: "enum", options: ["emea"], created_at: at },
      { object: "deal", key: "notes", label: "Notes", type: "text", options: null, created_at: at },
      { object: "contact", key: "vip", label: "VIP", type: "boolean", options: null, created_at: at }
    ]
    const catalog = catalogOf("deal", defs)
    expect(catalog.get("region")).toEqual(
      fieldInfo("region", "enum", { filterable: true, sortable: true, options: ["emea"], custom: true })
    )
    expect(catalog.get("notes")?.searchable).toBe(true)
    expect(catalog.has("vip")).toBe(false)
    expect([...catalogOf("contact", []).keys()]).toEqual(contactStandardFields.map((f) => f.name))
  })

  it("builds a field the query language may do nothing with unless told", () => {
    expect(fieldInfo("changed_at", "timestamp")).toEqual({
      name: "changed_at",
      type: "timestamp",
      filterable: false,
      sortable: false,
      searchable: false,
      wholeWord: false,
      options: null,
      custom: false
    })
  })
})
