import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { CustomFieldDefinition } from "../customField/definition.js"
import { parseDealCreate, parseDealPatch, parseStageMove } from "./input.js"

const defs: ReadonlyArray<CustomFieldDefinition> = [
  { object: "deal", key: "region", label: "Region", type: "enum", options: ["emea", "amer"], created_at: "2026-01-01T00:00:00.000Z" },
  { object: "contact", key: "industry", label: "Industry", type: "text", options: null, created_at: "2026-01-01T00:00:00.000Z" }
]
const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => d.path) : []

describe("parseDealCreate", () => {
  it("fills every standard field (the status left to the stage), contacts deduplicated", () => {
    expect(parseDealCreate({ name: " Big ", pipeline_id: "pipe_a", contact_ids: ["c1", "c2", "c1"], region: "emea" }, defs)).toEqual(
      Result.succeed({
        name: "Big",
        pipeline_id: "pipe_a",
        stage_id: null,
        value: null,
        currency: null,
        expected_close_date: null,
        owner_id: null,
        contact_ids: ["c1", "c2"],
        company_id: null,
        status: null,
        probability: null,
        lost_reason: null,
        region: "emea"
      })
    )
  })
  it("requires name and pipeline_id", () => {
    expect(paths(parseDealCreate({}, defs))).toEqual(["name", "pipeline_id"])
    expect(paths(parseDealCreate({ name: "  ", pipeline_id: "p" }, defs))).toEqual(["name"])
  })
  it("reports every offending key", () => {
    expect(
      paths(
        parseDealCreate(
          {
            name: "x",
            pipeline_id: "p",
            value: "100",
            currency: "usd",
            expected_close_date: "2026-02-30",
            status: "pending",
            contact_ids: "c1",
            industry: "saas",
            updated_at: "2026-01-01T00:00:00.000Z"
          },
          defs
        )
      )
    ).toEqual(["value", "currency", "expected_close_date", "status", "contact_ids", "industry", "updated_at"])
  })
  it("checks the currency against ISO 4217", () => {
    expect(paths(parseDealCreate({ name: "x", pipeline_id: "p", currency: "XYZ" }, defs))).toEqual(["currency"])
    expect(paths(parseDealCreate({ name: "x", pipeline_id: "p", currency: "JPY" }, defs))).toEqual([])
  })
  it("limits contact_ids to 100 distinct ids", () => {
    const many = Array.from({ length: 101 }, (_, i) => `c${i}`)
    expect(paths(parseDealCreate({ name: "x", pipeline_id: "p", contact_ids: many }, defs))).toEqual(["contact_ids"])
    expect(paths(parseDealCreate({ name: "x", pipeline_id: "p", contact_ids: [...many.slice(0, 100), "c0"] }, defs))).toEqual([])
  })
})

describe("parseDealPatch", () => {
  it("keeps only the given keys", () => {
    expect(parseDealPatch({ stage_id: "s2", value: null, region: null }, defs)).toEqual(
      Result.succeed({ stage_id: "s2", value: null, region: null })
    )
  })
  it("does not let stage_id, pipeline_id, name or status be cleared", () => {
    expect(paths(parseDealPatch({ stage_id: null, pipeline_id: null, name: null, status: null }, defs))).toEqual([
      "stage_id",
      "pipeline_id",
      "name",
      "status"
    ])
  })
})

describe("parseStageMove", () => {
  it("reads stage_id and an optional reason", () => {
    expect(parseStageMove({ stage_id: "s2" })).toEqual(Result.succeed({ stage_id: "s2", reason: null }))
    expect(parseStageMove({ stage_id: "s2", reason: "signed" })).toEqual(Result.succeed({ stage_id: "s2", reason: "signed" }))
  })
  it("refuses a missing stage, a long reason and unknown keys", () => {
    expect(paths(parseStageMove({ reason: "r".repeat(1001), note: "x" }))).toEqual(["stage_id", "reason", "note"])
    expect(paths(parseStageMove("s2"))).toEqual([""])
  })
})
