import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { parsePipelineCreate, parsePipelinePatch } from "./input.js"

const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => d.path) : []

describe("parsePipelineCreate", () => {
  it("reads name and stage names, trimmed", () => {
    expect(parsePipelineCreate({ name: " Enterprise ", stages: [{ name: "Lead" }, { name: "Won " }] })).toEqual(
      Result.succeed({ name: "Enterprise", stages: [{ name: "Lead" }, { name: "Won" }] })
    )
  })
  it("requires name and at least one stage", () => {
    expect(paths(parsePipelineCreate({}))).toEqual(["name", "stages"])
    expect(paths(parsePipelineCreate({ name: "x", stages: [] }))).toEqual(["stages"])
  })
  it("reports every offending part", () => {
    expect(
      paths(
        parsePipelineCreate({
          name: "x".repeat(201),
          stages: [{ name: "" }, "Lead", { name: "Ok", position: 3 }, {}],
          id: "pipe_x",
          color: "red"
        })
      )
    ).toEqual(["name", "stages[0].name", "stages[1]", "stages[2].position", "stages[3].name", "id", "color"])
  })
  it("refuses more than 50 stages", () => {
    const stages = Array.from({ length: 51 }, (_, i) => ({ name: `S${i}` }))
    expect(paths(parsePipelineCreate({ name: "x", stages }))).toEqual(["stages"])
  })
  it("refuses a body that is not an object", () => {
    expect(paths(parsePipelineCreate([]))).toEqual([""])
  })
})

describe("parsePipelinePatch", () => {
  it("keeps only the given keys; a stage without id is new", () => {
    expect(parsePipelinePatch({ stages: [{ id: "stage_a", name: "Lead" }, { name: "New" }, { id: null, name: "Also new" }] })).toEqual(
      Result.succeed({
        stages: [
          { id: "stage_a", name: "Lead" },
          { id: null, name: "New" },
          { id: null, name: "Also new" }
        ]
      })
    )
    expect(parsePipelinePatch({ name: "Renamed" })).toEqual(Result.succeed({ name: "Renamed" }))
    expect(parsePipelinePatch({})).toEqual(Result.succeed({}))
  })
  it("refuses a malformed stage id", () => {
    expect(paths(parsePipelinePatch({ stages: [{ id: 3, name: "x" }] }))).toEqual(["stages[0].id"])
  })
})

describe("stage rules in the input", () => {
  it("reads required_fields on create and patch, next_stage_ids on patch only", () => {
    expect(parsePipelineCreate({ name: "x", stages: [{ name: "Proposal", required_fields: ["value", "region"] }] })).toEqual(
      Result.succeed({ name: "x", stages: [{ name: "Proposal", required_fields: ["value", "region"] }] })
    )
    expect(
      parsePipelinePatch({
        stages: [
          { id: "s1", name: "Lead", next_stage_ids: ["s2"] },
          { id: "s2", name: "Won", next_stage_ids: null }
        ]
      })
    ).toEqual(
      Result.succeed({
        stages: [
          { id: "s1", name: "Lead", next_stage_ids: ["s2"] },
          { id: "s2", name: "Won", next_stage_ids: null }
        ]
      })
    )
    expect(paths(parsePipelineCreate({ name: "x", stages: [{ name: "Lead", next_stage_ids: [] }] }))).toEqual(["stages[0].next_stage_ids"])
  })
  it("refuses fields a deal always has, unknown shapes and repeats", () => {
    expect(
      paths(
        parsePipelineCreate({
          name: "x",
          stages: [
            { name: "A", required_fields: ["name", "Value", "value", "value", 3] },
            { name: "B", required_fields: "value" }
          ]
        })
      )
    ).toEqual([
      "stages[0].required_fields[0]",
      "stages[0].required_fields[1]",
      "stages[0].required_fields[3]",
      "stages[0].required_fields[4]",
      "stages[1].required_fields"
    ])
    expect(
      paths(
        parsePipelinePatch({
          stages: [
            { id: "s1", name: "A", next_stage_ids: ["s2", "s2", ""] },
            { name: "B", next_stage_ids: "s1" }
          ]
        })
      )
    ).toEqual(["stages[0].next_stage_ids[1]", "stages[0].next_stage_ids[2]", "stages[1].next_stage_ids"])
  })
})
