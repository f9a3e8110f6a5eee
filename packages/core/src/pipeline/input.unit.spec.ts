import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { parsePipelineCreate, parsePipelinePatch } from "./input.js"

const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => d.path) : []

describe("parsePipelineCreate", () => {
  it("reads name and stage names, trimmed", () => {
    expect(parsePipelineCreate({ name: " Enterprise ", stages: [{ name: "Lead" }, { name: "Won " }] }))
      .toEqual(Result.succeed({ name: "Enterprise", stages: [{ name: "Lead" }, { name: "Won" }] }))
  })
  it("requires name and at least one stage", () => {
    expect(paths(parsePipelineCreate({}))).toEqual(["name", "stages"])
    expect(paths(parsePipelineCreate({ name: "x", stages: [] }))).toEqual(["stages"])
  })
  it("reports every offending part", () => {
    expect(paths(parsePipelineCreate({
      name: "x".repeat(201),
      stages: [{ name: "" }, "Lead", { name: "Ok", position: 3 }, {}],
      id: "pipe_x",
      color: "red"
    }))).toEqual(["name", "stages[0].name", "stages[1]", "stages[2].position", "stages[3].name", "id", "color"])
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
    expect(parsePipelinePatch({ stages: [{ id: "stage_a", name: "Lead" }, { name: "New" }, { id: null, name: "Also new" }] }))
      .toEqual(Result.succeed({ stages: [{ id: "stage_a", name: "Lead" }, { id: null, name: "New" }, { id: null, name: "Also new" }] }))
    expect(parsePipelinePatch({ name: "Renamed" })).toEqual(Result.succeed({ name: "Renamed" }))
    expect(parsePipelinePatch({})).toEqual(Result.succeed({}))
  })
  it("refuses a malformed stage id", () => {
    expect(paths(parsePipelinePatch({ stages: [{ id: 3, name: "x" }] }))).toEqual(["stages[0].id"])
  })
})
