import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { UpdatePipeline } from "./commands.js"
import { pipelineDecider, pipelineInfoOf } from "./decider.js"
import { DEFAULT_STAGE_NAMES, defaultPipelineCommand } from "./defaultPipeline.js"
import type { PipelineEvent } from "./events.js"

const given = DeciderSpecification.for(pipelineDecider)

const id = "pipe_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const created: PipelineEvent = {
  type: "pipeline.created",
  data: {
    id,
    name: "Sales",
    stages: [
      { id: "stage_a", name: "Lead", position: 0 },
      { id: "stage_b", name: "Won", position: 1 }
    ],
    at: t0
  }
}
const update = (patch: Partial<UpdatePipeline>): UpdatePipeline => ({
  type: "UpdatePipeline",
  id,
  at: t1,
  knownNewStageIds: new Set(),
  stagesHoldingDeals: new Set(),
  ...patch
})

describe("pipelineDecider", () => {
  describe("CreatePipeline", () => {
    it("records the stages with their positions", () => {
      given([])
        .when({
          type: "CreatePipeline",
          id,
          at: t0,
          name: "Sales",
          stages: [
            { id: "stage_a", name: "Lead" },
            { id: "stage_b", name: "Won" }
          ]
        })
        .then([created])
    })
    it("refuses an id that is already taken", () => {
      given([created])
        .when({ type: "CreatePipeline", id, at: t1, name: "x", stages: [{ id: "s", name: "s" }] })
        .thenFails("Conflict")
    })
    it("makes the default Sales pipeline from six ids", () => {
      const ids = DEFAULT_STAGE_NAMES.map((_, i) => `stage_${i}`)
      const command = defaultPipelineCommand(id, ids, t0)
      expect(command.name).toBe("Sales")
      expect(command.stages.map((s) => s.name)).toEqual(["Lead", "Qualified", "Proposal", "Negotiation", "Won", "Lost"])
      expect(command.stages.map((s) => s.id)).toEqual(ids)
      expect(() => defaultPipelineCommand(id, ids.slice(1), t0)).toThrow()
    })
  })

  describe("UpdatePipeline", () => {
    it("renames", () => {
      given([created])
        .when(update({ name: "Enterprise" }))
        .then([{ type: "pipeline.updated", data: { name: "Enterprise", at: t1 } }])
    })
    it("appends a new stage and reorders, positions following the list", () => {
      given([created])
        .when(
          update({
            stages: [
              { id: "stage_b", name: "Won" },
              { id: "stage_new", name: "Lost" },
              { id: "stage_a", name: "Lead" }
            ],
            knownNewStageIds: new Set(["stage_new"])
          })
        )
        .then([
          {
            type: "pipeline.updated",
            data: {
              stages: [
                { id: "stage_b", name: "Won", position: 0 },
                { id: "stage_new", name: "Lost", position: 1 },
                { id: "stage_a", name: "Lead", position: 2 }
              ],
              at: t1
            }
          }
        ])
    })
    it("removes a stage that holds no deals", () => {
      given([created])
        .when(update({ stages: [{ id: "stage_a", name: "Lead" }], stagesHoldingDeals: new Set(["stage_a"]) }))
        .then([{ type: "pipeline.updated", data: { stages: [{ id: "stage_a", name: "Lead", position: 0 }], at: t1 } }])
    })
    it("records nothing when name and stages are unchanged", () => {
      given([created])
        .when(
          update({
            name: "Sales",
            stages: [
              { id: "stage_a", name: "Lead" },
              { id: "stage_b", name: "Won" }
            ]
          })
        )
        .thenNothingHappens()
      given([created]).when(update({})).thenNothingHappens()
    })
    it("refuses to remove a stage holding deals, naming it", () => {
      given([created])
        .when(update({ stages: [{ id: "stage_a", name: "Lead" }], stagesHoldingDeals: new Set(["stage_b"]) }))
        .thenFails("Conflict", (e) =>
          expect(e.details).toEqual([{ path: "stages", message: 'stage "Won" holds live deals', id: "stage_b" }])
        )
    })
    it("refuses an id that is neither a current nor a new stage", () => {
      given([created])
        .when(
          update({
            stages: [
              { id: "stage_a", name: "Lead" },
              { id: "stage_other", name: "X" }
            ]
          })
        )
        .thenFails("ValidationError", (e) => expect(e.details.map((d) => d.path)).toEqual(["stages[1].id"]))
    })
    it("refuses a stage listed twice", () => {
      given([created])
        .when(
          update({
            stages: [
              { id: "stage_a", name: "Lead" },
              { id: "stage_a", name: "Again" }
            ]
          })
        )
        .thenFails("ValidationError", (e) => expect(e.details.map((d) => d.path)).toEqual(["stages[1].id"]))
    })
    it("refuses an empty stage list", () => {
      given([created])
        .when(update({ stages: [] }))
        .thenFails("ValidationError")
    })
    it("is not found on an absent pipeline", () => {
      given([])
        .when(update({ name: "x" }))
        .thenFails("NotFound", (e) => expect(e.resource).toBe("pipeline"))
    })
  })

  it("exposes the stages deals need", () => {
    const state = [created].reduce(pipelineDecider.evolve, pipelineDecider.initialState)
    expect(pipelineInfoOf(state)).toEqual({ id, stages: created.data.stages })
    expect(pipelineInfoOf(pipelineDecider.initialState)).toBeNull()
  })

  describe("stage rules", () => {
    const lead = { id: "stage_a", name: "Lead" }
    const won = { id: "stage_b", name: "Won" }
    it("records rules given on creation, and leaves a stage without rules without rule keys", () => {
      given([])
        .when({
          type: "CreatePipeline",
          id,
          at: t0,
          name: "Sales",
          stages: [
            { ...lead, required_fields: [] },
            { ...won, required_fields: ["value"] }
          ]
        })
        .then([
          {
            type: "pipeline.created",
            data: {
              id,
              name: "Sales",
              stages: [
                { ...lead, position: 0 },
                { ...won, position: 1, required_fields: ["value"] }
              ],
              at: t0
            }
          }
        ])
    })
    it("sets rules on an update, keeps them where the list leaves them out, and clears them with [] and null", () => {
      const ruled = {
        type: "pipeline.updated" as const,
        data: {
          stages: [
            { ...lead, position: 0, next_stage_ids: ["stage_b"] },
            { ...won, position: 1, required_fields: ["value"] }
          ],
          at: t1
        }
      }
      given([created])
        .when(
          update({
            stages: [
              { ...lead, next_stage_ids: ["stage_b"] },
              { ...won, required_fields: ["value"] }
            ]
          })
        )
        .then([ruled])
      // Renaming without naming the rules keeps them.
      given([created, ruled])
        .when(update({ stages: [{ ...lead, name: "New" }, won] }))
        .then([
          {
            type: "pipeline.updated",
            data: {
              stages: [
                { ...lead, name: "New", position: 0, next_stage_ids: ["stage_b"] },
                { ...won, position: 1, required_fields: ["value"] }
              ],
              at: t1
            }
          }
        ])
      given([created, ruled])
        .when(update({ stages: [lead, won] }))
        .thenNothingHappens()
      given([created, ruled])
        .when(
          update({
            stages: [
              { ...lead, next_stage_ids: null },
              { ...won, required_fields: [] }
            ]
          })
        )
        .then([
          {
            type: "pipeline.updated",
            data: {
              stages: [
                { ...lead, position: 0 },
                { ...won, position: 1 }
              ],
              at: t1
            }
          }
        ])
    })
    it("refuses next_stage_ids naming a stage the list does not have, kept ones included", () => {
      given([created])
        .when(update({ stages: [{ ...lead, next_stage_ids: ["stage_x"] }, won] }))
        .thenFails("ValidationError", (e) => expect(e.details.map((d) => d.path)).toEqual(["stages[0].next_stage_ids[0]"]))
      const ruled: PipelineEvent = {
        type: "pipeline.updated",
        data: {
          stages: [
            { ...lead, position: 0, next_stage_ids: ["stage_b"] },
            { ...won, position: 1 }
          ],
          at: t1
        }
      }
      given([created, ruled])
        .when(update({ stages: [lead] }))
        .thenFails("ValidationError", (e) => expect(e.details[0]?.message).toBe("names stage_b, which is not a stage of this pipeline"))
    })
  })
})
