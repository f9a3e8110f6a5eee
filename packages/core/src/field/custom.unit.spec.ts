import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { CustomFieldDefinition } from "./custom.js"
import { customValueCheck } from "./custom.js"

const def = (type: CustomFieldDefinition["type"], options: ReadonlyArray<string> | null = null): CustomFieldDefinition => ({
  object: "contact",
  key: "k",
  label: "K",
  type,
  options,
  created_at: "2026-01-01T00:00:00.000Z"
})

describe("custom field values", () => {
  it("accepts values of the defined type and null", () => {
    const accepted: ReadonlyArray<[CustomFieldDefinition, unknown]> = [
      [def("text"), "hello"],
      [def("number"), -1.5],
      [def("boolean"), false],
      [def("date"), "2024-02-29"],
      [def("enum", ["a", "b"]), "b"]
    ]
    for (const [d, value] of accepted) {
      expect(customValueCheck(d)(value)).toEqual(Result.succeed(value))
      expect(customValueCheck(d)(null)).toEqual(Result.succeed(null))
    }
  })

  it("refuses values of another type", () => {
    const refused: ReadonlyArray<[CustomFieldDefinition, unknown]> = [
      [def("text"), 3],
      [def("text"), "x".repeat(10_001)],
      [def("number"), "3"],
      [def("boolean"), "true"],
      [def("date"), "2023-02-29"],
      [def("date"), "2026-1-1"],
      [def("enum", ["a"]), "c"],
      [def("enum", ["a"]), ["a"]]
    ]
    for (const [d, value] of refused) expect(Result.isFailure(customValueCheck(d)(value))).toBe(true)
  })
})
