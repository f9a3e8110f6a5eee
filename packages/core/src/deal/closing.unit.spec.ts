import { describe, expect, it } from "@effect/vitest"
import type { PipelineInfo } from "../pipeline/decider.js"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { CreateDeal, MoveStage, UpdateDeal } from "./commands.js"
import { dealDecider } from "./decider.js"
import type { DealEvent } from "./events.js"

// The closing rules of deal/closing.ts as the decider applies them, on a pipeline with closing
// stages and on one without.
const given = DeciderSpecification.for(dealDecider)
const id = "deal_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const t2 = "2026-01-03T00:00:00.000Z"
const sales: PipelineInfo = {
  id: "pipe_s",
  stages: [
    { id: "lead", name: "Lead", position: 0, probability: 0.1 },
    { id: "nego", name: "Negotiation", position: 1, probability: 0.75 },
    { id: "won", name: "Won", position: 2, outcome: "won", probability: 1 },
    { id: "lost", name: "Lost", position: 3, outcome: "lost", probability: 0 }
  ]
}
const plain: PipelineInfo = {
  id: "pipe_p",
  stages: [
    { id: "p1", name: "One", position: 0 },
    { id: "p2", name: "Two", position: 1 }
  ]
}
const body = { name: "Pilot", pipeline_id: "pipe_s", stage_id: null, status: null, lost_reason: null, contact_ids: [] }
const create = (fields: Record<string, unknown>, pipeline = sales): CreateDeal => ({
  type: "CreateDeal",
  id,
  at: t0,
  fields: { ...body, pipeline_id: pipeline.id, ...fields } as never,
  pipeline,
  unknownContactIds: []
})
const createdIn = (stage: string, closing: Record<string, unknown> = {}, pipeline = sales): DealEvent => ({
  type: "deal.created",
  data: {
    id,
    fields: { ...body, pipeline_id: pipeline.id, stage_id: stage, status: "open", closed_at: null, lost_reason: null, ...closing },
    at: t0
  }
})
const patch = (fields: Record<string, unknown>, pipeline = sales, at = t1): UpdateDeal => ({
  type: "UpdateDeal",
  id,
  at,
  fields: fields as never,
  entryId: "tle_1",
  targetPipeline: pipeline,
  unknownContactIds: []
})
const move = (stageId: string, extra: Partial<MoveStage> = {}, at = t1): MoveStage => ({
  type: "MoveStage",
  id,
  at,
  stageId,
  reason: null,
  entryId: "tle_1",
  pipeline: sales,
  ...extra
})
const moved = (from: string, to: string, data: Record<string, unknown>, at = t1, pipeline = sales): DealEvent => ({
  type: "deal.stage_changed",
  data: {
    entry_id: "tle_1",
    from_pipeline_id: pipeline.id,
    to_pipeline_id: pipeline.id,
    from_stage_id: from,
    to_stage_id: to,
    reason: null,
    from_status: "open",
    to_status: "open",
    at,
    ...data
  }
})
const details = (e: { details: ReadonlyArray<{ path: string; message: string }> }) => e.details.map((d) => d.path)

describe("deals close by their stage", () => {
  it("a deal created in a closing stage is closed then, and one created with a status goes to that stage", () => {
    given([])
      .when(create({ stage_id: "won" }))
      .then([createdIn("won", { status: "won", closed_at: t0 })])
    given([])
      .when(create({ status: "lost", lost_reason: "price" }))
      .then([createdIn("lost", { status: "lost", closed_at: t0, lost_reason: "price" })])
  })

  it("entering a won or lost stage closes the deal at the move's time; lost takes the reason, or the body's lost_reason", () => {
    given([createdIn("lead")])
      .when(move("won"))
      .then([moved("lead", "won", { to_status: "won", closed_at: t1, lost_reason: null })])
    given([createdIn("lead")])
      .when(move("lost", { reason: "budget" }))
      .then([moved("lead", "lost", { to_status: "lost", closed_at: t1, lost_reason: "budget", reason: "budget" })])
    given([createdIn("lead")])
      .when(move("lost", { reason: "call on friday", lostReason: "budget" }))
      .then([moved("lead", "lost", { to_status: "lost", closed_at: t1, lost_reason: "budget", reason: "call on friday" })])
    given([createdIn("lead")])
      .when(patch({ stage_id: "lost", lost_reason: "timing" }))
      .then([moved("lead", "lost", { to_status: "lost", closed_at: t1, lost_reason: "timing" })])
  })

  it("leaving a closing stage for an open one reopens the deal", () => {
    given([createdIn("lead"), moved("lead", "lost", { to_status: "lost", closed_at: t1, lost_reason: "budget" })])
      .when(move("nego", {}, t2))
      .then([
        {
          type: "deal.stage_changed",
          data: {
            entry_id: "tle_1",
            from_pipeline_id: "pipe_s",
            to_pipeline_id: "pipe_s",
            from_stage_id: "lost",
            to_stage_id: "nego",
            reason: null,
            from_status: "lost",
            to_status: "open",
            closed_at: null,
            lost_reason: null,
            at: t2
          }
        }
      ])
  })

  it("status won or lost moves the deal into the pipeline's first stage of that outcome", () => {
    given([createdIn("lead")])
      .when(patch({ status: "won", name: "Signed" }))
      .then([
        { type: "deal.updated", data: { changed: { name: "Signed" }, at: t1 } },
        moved("lead", "won", { to_status: "won", closed_at: t1, lost_reason: null })
      ])
  })

  it("status open moves a closed deal back to the stage it was in before it closed, else to the first open stage", () => {
    const wonFromNego = [
      createdIn("lead"),
      moved("lead", "nego", {}),
      moved("nego", "won", { to_status: "won", closed_at: t1, lost_reason: null })
    ]
    given(wonFromNego)
      .when(patch({ status: "open" }, sales, t2))
      .then([
        {
          type: "deal.stage_changed",
          data: {
            ...(moved("won", "nego", {}, t2).data as object),
            from_status: "won",
            to_status: "open",
            closed_at: null,
            lost_reason: null
          } as never
        }
      ])
    given([createdIn("won", { status: "won", closed_at: t0 })])
      .when(patch({ status: "open" }, sales, t2))
      .then([
        {
          type: "deal.stage_changed",
          data: {
            ...(moved("won", "lead", {}, t2).data as object),
            from_status: "won",
            to_status: "open",
            closed_at: null,
            lost_reason: null
          } as never
        }
      ])
  })

  it("in a pipeline without closing stages only the status, closed_at and lost_reason change", () => {
    given([createdIn("p1", {}, plain)])
      .when(patch({ status: "lost", lost_reason: "budget" }, plain))
      .then([{ type: "deal.updated", data: { changed: { status: "lost", closed_at: t1, lost_reason: "budget" }, at: t1 } }])
    given([createdIn("p1", { status: "won", closed_at: t0 }, plain)])
      .when(patch({ status: "open" }, plain))
      .then([{ type: "deal.updated", data: { changed: { status: "open", closed_at: null }, at: t1 } }])
    // A move between open stages keeps the status set by hand.
    given([createdIn("p1", { status: "won", closed_at: t0 }, plain)])
      .when(patch({ stage_id: "p2" }, plain))
      .then([moved("p1", "p2", { from_status: "won", to_status: "won" }, t1, plain)])
  })

  it("refuses a body that contradicts itself, at status, and a lost_reason on a deal that is not lost", () => {
    given([createdIn("lead")])
      .when(patch({ stage_id: "won", status: "lost" }))
      .thenFails("ValidationError", (e) => expect(details(e)).toEqual(["status"]))
    given([createdIn("lead")])
      .when(patch({ stage_id: "nego", status: "won" }))
      .thenFails("ValidationError", (e) => expect(details(e)).toEqual(["status"]))
    given([])
      .when(create({ stage_id: "won", status: "open" }))
      .thenFails("ValidationError", (e) => expect(details(e)).toEqual(["status"]))
    given([createdIn("lead")])
      .when(patch({ lost_reason: "why" }))
      .thenFails("ValidationError", (e) => expect(details(e)).toEqual(["lost_reason"]))
    given([createdIn("lead")])
      .when(move("won", { lostReason: "why" }))
      .thenFails("ValidationError", (e) => expect(details(e)).toEqual(["lost_reason"]))
  })

  it("a lost deal's reason may be changed, and a status it already has changes nothing", () => {
    const lost = [createdIn("lost", { status: "lost", closed_at: t0, lost_reason: "price" })]
    given(lost)
      .when(patch({ lost_reason: "timing" }))
      .then([{ type: "deal.updated", data: { changed: { lost_reason: "timing" }, at: t1 } }])
    given(lost)
      .when(patch({ status: "lost" }))
      .thenNothingHappens()
  })
})
