import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import type { CreateDeal, UpdateDeal } from "./commands.js"
import { dealDecider } from "./decider.js"
import type { DealEvent } from "./events.js"

const given = DeciderSpecification.for(dealDecider)

const id = "deal_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const sales: PipelineInfo = {
  id: "pipe_a",
  // Listed out of order on purpose: the first stage is the lowest position, not the first element.
  stages: [
    { id: "a2", name: "Won", position: 1 },
    { id: "a1", name: "Lead", position: 0 }
  ]
}
const partners: PipelineInfo = {
  id: "pipe_b",
  stages: [
    { id: "b1", name: "Intro", position: 0 },
    { id: "b2", name: "Signed", position: 1 }
  ]
}

const input = {
  name: "Big deal",
  pipeline_id: "pipe_a",
  stage_id: null,
  value: 1000,
  currency: "EUR",
  expected_close_date: null,
  owner_id: null,
  contact_ids: ["con_1", "con_2"],
  status: "open"
}
const create = (patch: Partial<CreateDeal> = {}): CreateDeal => ({
  type: "CreateDeal",
  id,
  at: t0,
  fields: input,
  pipeline: sales,
  unknownContactIds: [],
  ...patch
})
/** A deal the pipeline's stages leave open, as every new deal of these pipelines (none has a closing stage). */
const opened = { status: "open", closed_at: null, lost_reason: null }
const created: DealEvent = { type: "deal.created", data: { id, fields: { ...input, stage_id: "a1", ...opened }, at: t0 } }
const update = (fields: UpdateDeal["fields"], patch: Partial<UpdateDeal> = {}): UpdateDeal => ({
  type: "UpdateDeal",
  id,
  at: t1,
  fields,
  entryId: "tle_1",
  targetPipeline: sales,
  unknownContactIds: [],
  ...patch
})
const moved = (from: [string, string], to: [string, string], reason: string | null = null): DealEvent => ({
  type: "deal.stage_changed",
  data: {
    entry_id: "tle_1",
    from_pipeline_id: from[0],
    to_pipeline_id: to[0],
    from_stage_id: from[1],
    to_stage_id: to[1],
    reason,
    from_status: "open",
    to_status: "open",
    at: t1
  }
})
const deleted: DealEvent = { type: "deal.deleted", data: { at: t1 } }
const purged: DealEvent = { type: "deal.purged", data: { at: "2026-03-01T00:00:00.000Z" } }
const paths = (e: { details: ReadonlyArray<{ path: string }> }) => e.details.map((d) => d.path)

describe("dealDecider", () => {
  describe("CreateDeal", () => {
    it("places a deal without stage in the lowest-position stage, with no timeline entry", () => {
      given([]).when(create()).then([created])
    })
    it("keeps a given stage of the pipeline", () => {
      given([])
        .when(create({ fields: { ...input, stage_id: "a2" } }))
        .then([{ type: "deal.created", data: { id, fields: { ...input, stage_id: "a2", ...opened }, at: t0 } }])
    })
    it("refuses an unknown pipeline", () => {
      given([])
        .when(create({ pipeline: null }))
        .thenFails("ValidationError", (e) => expect(paths(e)).toEqual(["pipeline_id"]))
    })
    it("refuses a stage of another pipeline and unknown contacts, all at once", () => {
      given([])
        .when(create({ fields: { ...input, stage_id: "b1" }, unknownContactIds: ["con_2"] }))
        .thenFails("ValidationError", (e) => expect(paths(e)).toEqual(["stage_id", "contact_ids[1]"]))
    })
    it("refuses an id that is already taken", () => {
      given([created]).when(create()).thenFails("Conflict")
    })
  })

  describe("UpdateDeal", () => {
    it("records changed fields only", () => {
      given([created])
        .when(update({ name: "Bigger deal", value: 1000, contact_ids: ["con_1", "con_2"] }))
        .then([{ type: "deal.updated", data: { changed: { name: "Bigger deal" }, at: t1 } }])
    })
    it("moves to a different stage with one stage change after the other changes", () => {
      given([created])
        .when(update({ stage_id: "a2", name: "Won it" }))
        .then([{ type: "deal.updated", data: { changed: { name: "Won it" }, at: t1 } }, moved(["pipe_a", "a1"], ["pipe_a", "a2"])])
    })
    it("records nothing for the same stage and pipeline", () => {
      given([created])
        .when(update({ stage_id: "a1", pipeline_id: "pipe_a" }))
        .thenNothingHappens()
    })
    it("moves to the new pipeline's first stage when only the pipeline changes", () => {
      given([created])
        .when(update({ pipeline_id: "pipe_b" }, { targetPipeline: partners }))
        .then([moved(["pipe_a", "a1"], ["pipe_b", "b1"])])
    })
    it("moves to a given stage of the new pipeline", () => {
      given([created])
        .when(update({ pipeline_id: "pipe_b", stage_id: "b2" }, { targetPipeline: partners }))
        .then([moved(["pipe_a", "a1"], ["pipe_b", "b2"])])
    })
    it("refuses a stage outside the target pipeline", () => {
      given([created])
        .when(update({ stage_id: "b2" }))
        .thenFails("ValidationError", (e) => expect(paths(e)).toEqual(["stage_id"]))
      given([created])
        .when(update({ pipeline_id: "pipe_b", stage_id: "a2" }, { targetPipeline: partners }))
        .thenFails("ValidationError", (e) => expect(paths(e)).toEqual(["stage_id"]))
    })
    it("refuses an unknown pipeline", () => {
      given([created])
        .when(update({ pipeline_id: "pipe_x" }, { targetPipeline: null }))
        .thenFails("ValidationError", (e) => expect(paths(e)).toEqual(["pipeline_id"]))
    })
    it("refuses unknown contacts at their index", () => {
      given([created])
        .when(update({ contact_ids: ["con_1", "con_9"] }, { unknownContactIds: ["con_9"] }))
        .thenFails("ValidationError", (e) => expect(paths(e)).toEqual(["contact_ids[1]"]))
    })
    it("keeps linked contacts that are in the trash when contact_ids is patched, where they stood", () => {
      given([created])
        .when(update({ contact_ids: ["con_2", "con_3"] }, { trashedContactIds: ["con_1"] }))
        .then([{ type: "deal.updated", data: { changed: { contact_ids: ["con_1", "con_2", "con_3"] }, at: t1 } }])
      // The list the client was shown (con_1 hidden) patched back: nothing changes.
      given([created])
        .when(update({ contact_ids: ["con_2"] }, { trashedContactIds: ["con_1"] }))
        .then([])
      given([created])
        .when(update({ contact_ids: [] }, { trashedContactIds: ["con_2"] }))
        .then([{ type: "deal.updated", data: { changed: { contact_ids: ["con_2"] }, at: t1 } }])
    })
    it("is not found on an absent, deleted or purged deal", () => {
      given([])
        .when(update({ name: "x" }))
        .thenFails("NotFound", (e) => expect(e.resource).toBe("deal"))
      given([created, deleted])
        .when(update({ name: "x" }))
        .thenFails("NotFound")
      given([created, deleted, purged])
        .when(update({ name: "x" }))
        .thenFails("NotFound")
    })
  })

  describe("MoveStage", () => {
    const move = (stageId: string, reason: string | null = null) =>
      ({ type: "MoveStage", id, at: t1, stageId, reason, entryId: "tle_1", pipeline: sales }) as const
    it("moves with the reason", () => {
      given([created])
        .when(move("a2", "signed"))
        .then([moved(["pipe_a", "a1"], ["pipe_a", "a2"], "signed")])
    })
    it("records nothing for the current stage", () => {
      given([created]).when(move("a1", "again")).thenNothingHappens()
    })
    it("refuses a foreign stage", () => {
      given([created])
        .when(move("b1"))
        .thenFails("ValidationError", (e) => expect(paths(e)).toEqual(["stage_id"]))
    })
    it("is not found on an absent or deleted deal", () => {
      given([]).when(move("a2")).thenFails("NotFound")
      given([created, deleted]).when(move("a2")).thenFails("NotFound")
    })
  })

  describe("DeleteDeal, RestoreDeal, PurgeDeal", () => {
    const inWindow = "2026-02-01T00:00:00.000Z"
    const afterWindow = "2026-02-01T00:00:00.001Z"
    it("deletes a live deal only", () => {
      given([created]).when({ type: "DeleteDeal", id, at: t1 }).then([deleted])
      given([created, deleted]).when({ type: "DeleteDeal", id, at: t1 }).thenFails("NotFound")
      given([]).when({ type: "DeleteDeal", id, at: t1 }).thenFails("NotFound")
    })
    it("restores within 30 days of the delete, not after, not when live", () => {
      given([created, deleted])
        .when({ type: "RestoreDeal", id, at: inWindow })
        .then([{ type: "deal.restored", data: { at: inWindow } }])
      given([created, deleted]).when({ type: "RestoreDeal", id, at: afterWindow }).thenFails("NotFound")
      given([created]).when({ type: "RestoreDeal", id, at: t1 }).thenFails("NotFound")
      given([created, deleted, purged]).when({ type: "RestoreDeal", id, at: t1 }).thenFails("NotFound")
    })
    it("purges only after the window", () => {
      given([created, deleted])
        .when({ type: "PurgeDeal", id, at: afterWindow })
        .then([{ type: "deal.purged", data: { at: afterWindow } }])
      given([created, deleted]).when({ type: "PurgeDeal", id, at: inWindow }).thenFails("Conflict")
      given([created]).when({ type: "PurgeDeal", id, at: afterWindow }).thenFails("Conflict")
      given([created, deleted, purged]).when({ type: "PurgeDeal", id, at: "2027-01-01T00:00:00.000Z" }).thenFails("NotFound")
      given([]).when({ type: "PurgeDeal", id, at: t1 }).thenFails("NotFound")
    })
  })

  describe("UnlinkContact (a linked contact's erasure)", () => {
    const unlink = (contactId: string) => ({ type: "UnlinkContact" as const, id, at: t1, contactId })
    const unlinked = (contactId: string): DealEvent => ({ type: "deal.contact_unlinked", data: { contact_id: contactId, at: t1 } })
    it("takes the contact out of a live deal or one in the trash, once", () => {
      given([created])
        .when(unlink("con_1"))
        .then([unlinked("con_1")])
      given([created, deleted])
        .when(unlink("con_2"))
        .then([unlinked("con_2")])
      given([created, unlinked("con_1")])
        .when(unlink("con_1"))
        .thenNothingHappens()
      given([created]).when(unlink("con_9")).thenNothingHappens()
    })
    it("leaves the deal's other contacts to a later patch, which keeps them", () => {
      given([created, unlinked("con_1")])
        .when(update({ contact_ids: ["con_2"] }))
        .thenNothingHappens()
    })
    it("is not found on an absent or purged deal", () => {
      given([]).when(unlink("con_1")).thenFails("NotFound")
      given([created, deleted, purged]).when(unlink("con_1")).thenFails("NotFound")
    })
  })
})
