import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { parseCustomFieldCreate } from "./input.js"

const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => d.path) : []

describe("parseCustomFieldCreate", () => {
  it("reads an enum with its options and other types without", () => {
    expect(
      parseCustomFieldCreate({ object: "contact", key: "industry", label: " Industry ", type: "enum", options: ["saas", "fintech"] })
    ).toEqual(Result.succeed({ object: "contact", key: "industry", label: "Industry", type: "enum", options: ["saas", "fintech"] }))
    expect(parseCustomFieldCreate({ object: "deal", key: "seats_2", label: "Seats", type: "number", options: null })).toEqual(
      Result.succeed({ object: "deal", key: "seats_2", label: "Seats", type: "number", options: null })
    )
  })

  it("requires object, key, label and type", () => {
    expect(paths(parseCustomFieldCreate({}))).toEqual(["object", "key", "label", "type"])
  })

  it.each([["Industry"], ["1st"], ["_x"], ["has-dash"], ["a".repeat(64)], [3]])("refuses the key %j", (key) => {
    expect(paths(parseCustomFieldCreate({ object: "contact", key, label: "L", type: "text" }))).toEqual(["key"])
  })

  it("refuses keys that shadow standard or computed fields of that object only", () => {
    for (const key of ["email", "id", "created_at", "deal_ids", "activities"]) {
      expect(paths(parseCustomFieldCreate({ object: "contact", key, label: "L", type: "text" }))).toEqual(["key"])
    }
    expect(paths(parseCustomFieldCreate({ object: "deal", key: "stage_id", label: "L", type: "text" }))).toEqual(["key"])
    expect(Result.isSuccess(parseCustomFieldCreate({ object: "deal", key: "email", label: "L", type: "text" }))).toBe(true)
  })

  it("checks options against the type", () => {
    const base = { object: "contact", key: "k", label: "L" }
    expect(paths(parseCustomFieldCreate({ ...base, type: "enum" }))).toEqual(["options"])
    expect(paths(parseCustomFieldCreate({ ...base, type: "enum", options: [] }))).toEqual(["options"])
    expect(paths(parseCustomFieldCreate({ ...base, type: "enum", options: ["a", "a", 3] }))).toEqual(["options[1]", "options[2]"])
    expect(paths(parseCustomFieldCreate({ ...base, type: "text", options: ["a"] }))).toEqual(["options"])
  })

  it("reports every offending key", () => {
    expect(paths(parseCustomFieldCreate({ object: "account", key: "k", label: "", type: "json", extra: 1 }))).toEqual([
      "extra",
      "object",
      "label",
      "type"
    ])
  })
})
