import { beforeAll, describe, expect, it } from "vitest"
import { errorOf, hostFor, STORAGES } from "./client.js"

// The pipeline's stage rules over HTTP, on memory and on PostgreSQL alike: set with PATCH
// /v1/pipelines/:id, shown on the stages, in the OpenAPI document, and applied inside the deal
// decider to every way into a stage (create, PATCH, PUT /stage). Every answer is checked against
// /v1/openapi.json by the client.
describe.each(STORAGES)("%s storage", (storage) => {
  const host = hostFor(storage)
  let sales: { id: string; stages: Array<{ id: string; name: string }> }
  beforeAll(async () => {
    sales = (await host.call("GET", "/v1/pipelines")).body.data[0]
  })
  const stage = (name: string) => sales.stages.find((s) => s.name === name)!.id
  const list = () => sales.stages.map(({ id, name }) => ({ id, name }))

  it("documents the rules in the pipeline's schema", async () => {
    const document = (await host.call("GET", "/v1/openapi.json")).body
    const properties = document.components.schemas.Stage.properties
    expect(Object.keys(properties)).toEqual(["id", "name", "position", "outcome", "probability", "required_fields", "next_stage_ids"])
    expect(document.components.schemas.Stage.required).toEqual(["id", "name", "position", "outcome", "probability"])
    expect(JSON.stringify(document.components.schemas.PipelinePatch)).toContain("next_stage_ids")
  })

  it("refuses a move the rules forbid with 400, naming the rule, and lets the same move through once the deal qualifies", async () => {
    const ruled = await host.call("PATCH", `/v1/pipelines/${sales.id}`, {
      body: {
        stages: list().map((s) =>
          s.name === "Lead"
            ? { ...s, next_stage_ids: [stage("Qualified"), stage("Proposal"), stage("Lost")] }
            : s.name === "Proposal"
              ? { ...s, required_fields: ["value", "expected_close_date"] }
              : s
        )
      }
    })
    expect(ruled.status, ruled.text).toBe(200)
    expect(ruled.body.stages[0]).toEqual({
      id: stage("Lead"),
      name: "Lead",
      position: 0,
      outcome: null,
      probability: 0.1,
      next_stage_ids: [stage("Qualified"), stage("Proposal"), stage("Lost")]
    })
    expect(ruled.body.stages[2]).toEqual({
      id: stage("Proposal"),
      name: "Proposal",
      position: 2,
      outcome: null,
      probability: 0.5,
      required_fields: ["value", "expected_close_date"]
    })
    expect(ruled.body.stages[1]).toEqual({ id: stage("Qualified"), name: "Qualified", position: 1, outcome: null, probability: 0.25 })

    const deal = (await host.call("POST", "/v1/deals", { body: { name: "Pilot", pipeline_id: sales.id } })).body
    const toWon = await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Won") } })
    expect(toWon.status).toBe(400)
    expect(errorOf(toWon)).toMatchObject({
      code: "validation_error",
      details: [
        {
          path: "stage_id",
          message: `stage "Won" may not follow stage "Lead" (stage rule next_stage_ids of ${stage("Lead")})`,
          id: stage("Lead")
        }
      ]
    })
    const toProposal = await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Proposal") } })
    expect(toProposal.status).toBe(400)
    expect(errorOf(toProposal).details).toEqual([
      {
        path: "value",
        message: `is required to enter stage "Proposal" (stage rule required_fields of ${stage("Proposal")})`,
        id: stage("Proposal")
      },
      {
        path: "expected_close_date",
        message: `is required to enter stage "Proposal" (stage rule required_fields of ${stage("Proposal")})`,
        id: stage("Proposal")
      }
    ])
    const createdThere = await host.call("POST", "/v1/deals", {
      body: { name: "Direct", pipeline_id: sales.id, stage_id: stage("Proposal"), value: 9 }
    })
    expect(createdThere.status).toBe(400)
    expect(errorOf(createdThere).details.map((d) => d.path)).toEqual(["expected_close_date"])

    // Refusals changed nothing: still in Lead, at version 1, no timeline.
    const unchanged = await host.call("GET", `/v1/deals/${deal.id}`)
    expect([unchanged.body.stage_id, unchanged.headers.get("etag")]).toEqual([stage("Lead"), '"1"'])
    expect((await host.call("GET", `/v1/deals/${deal.id}/timeline`)).body.data).toEqual([])

    const patched = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { value: 1200, expected_close_date: "2026-09-30" } })
    expect(patched.status).toBe(200)
    const moved = await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Proposal"), reason: "qualified" } })
    expect(moved.status, moved.text).toBe(200)
    expect(moved.body.timeline_entry).toMatchObject({ from_stage_id: stage("Lead"), to_stage_id: stage("Proposal") })
  })

  it("refuses rules that name what is not there, and clears them with null and []", async () => {
    const stray = await host.call("PATCH", `/v1/pipelines/${sales.id}`, {
      body: { stages: list().map((s, i) => (i === 0 ? { ...s, next_stage_ids: ["stage_elsewhere"], required_fields: ["name"] } : s)) }
    })
    expect(stray.status).toBe(400)
    expect(errorOf(stray).details.map((d) => d.path)).toEqual(["stages[0].required_fields[0]"])
    const unknownStage = await host.call("PATCH", `/v1/pipelines/${sales.id}`, {
      body: { stages: list().map((s, i) => (i === 0 ? { ...s, next_stage_ids: ["stage_elsewhere"] } : s)) }
    })
    expect(unknownStage.status).toBe(400)
    expect(errorOf(unknownStage).details).toEqual([
      { path: "stages[0].next_stage_ids[0]", message: "names stage_elsewhere, which is not a stage of this pipeline" }
    ])
    const onCreate = await host.call("POST", "/v1/pipelines", { body: { name: "New", stages: [{ name: "A", next_stage_ids: [] }] } })
    expect(onCreate.status).toBe(400)
    expect(errorOf(onCreate).details.map((d) => d.path)).toEqual(["stages[0].next_stage_ids"])

    const cleared = await host.call("PATCH", `/v1/pipelines/${sales.id}`, {
      body: { stages: list().map((s) => ({ ...s, next_stage_ids: null, required_fields: [] })) }
    })
    expect(cleared.status).toBe(200)
    expect(cleared.body.stages.map((s: object) => Object.keys(s))).toEqual(
      sales.stages.map(() => ["id", "name", "position", "outcome", "probability"])
    )
    const deal = (await host.call("POST", "/v1/deals", { body: { name: "Free", pipeline_id: sales.id } })).body
    expect((await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Won") } })).status).toBe(200)
  })

  it("keeps a stage's rules through a rename that leaves them out, and takes required fields on a new pipeline", async () => {
    const created = await host.call("POST", "/v1/pipelines", {
      body: { name: "Renewals", stages: [{ name: "Due" }, { name: "Signed", required_fields: ["owner_id"] }] }
    })
    expect(created.status, created.text).toBe(201)
    const [due, signed] = created.body.stages
    expect(signed).toEqual({ id: signed.id, name: "Signed", position: 1, outcome: null, probability: null, required_fields: ["owner_id"] })
    const renamed = await host.call("PATCH", `/v1/pipelines/${created.body.id}`, {
      body: {
        stages: [
          { id: due.id, name: "Due", next_stage_ids: [signed.id] },
          { id: signed.id, name: "Signed (paper)" }
        ]
      }
    })
    expect(renamed.body.stages).toEqual([
      { id: due.id, name: "Due", position: 0, outcome: null, probability: null, next_stage_ids: [signed.id] },
      { id: signed.id, name: "Signed (paper)", position: 1, outcome: null, probability: null, required_fields: ["owner_id"] }
    ])
    const deal = (await host.call("POST", "/v1/deals", { body: { name: "Renewal", pipeline_id: created.body.id } })).body
    const refused = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { stage_id: signed.id } })
    expect(errorOf(refused).details.map((d) => d.path)).toEqual(["owner_id"])
    const accepted = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { stage_id: signed.id, owner_id: "usr_7" } })
    expect(accepted.status).toBe(200)
    expect(accepted.body.stage_id).toBe(signed.id)
  })
})
