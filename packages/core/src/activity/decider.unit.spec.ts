import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { ActivityCommand } from "./commands.js"
import { activityDecider } from "./decider.js"
import type { ActivityEvent } from "./events.js"
import { type LinkIds, noLinkIds } from "./links.js"

const given = DeciderSpecification.for(activityDecider)

const id = "act_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const t2 = "2026-01-03T00:00:00.000Z"
const due = "2026-01-10T09:00:00.000Z"

/** As parseActivityCreate gives them: every standard field in table order, done_at left to the decider. */
const taskFields = {
  type: "task",
  subject: "Send the proposal",
  body: null,
  due_at: due,
  owner_id: null,
  contact_ids: ["con_a", "con_b"],
  deal_ids: [],
  company_ids: []
}
const created: ActivityEvent = {
  type: "activity.created",
  data: {
    id,
    fields: {
      type: "task",
      subject: "Send the proposal",
      body: null,
      due_at: due,
      done_at: null,
      owner_id: null,
      contact_ids: ["con_a", "con_b"],
      deal_ids: [],
      company_ids: []
    },
    at: t0
  }
}
const deleted: ActivityEvent = { type: "activity.deleted", data: { at: t1 } }
const purged: ActivityEvent = { type: "activity.purged", data: { at: "2026-03-01T00:00:00.000Z" } }

const createWith = (fields: Record<string, unknown>, more: { done?: boolean; unknownIds?: LinkIds } = {}): ActivityCommand => ({
  type: "CreateActivity",
  id,
  at: t0,
  fields: { ...taskFields, ...fields } as never,
  done: more.done ?? null,
  unknownIds: more.unknownIds ?? noLinkIds
})

const patch = (
  fields: Record<string, unknown>,
  more: { done?: boolean; unknownIds?: LinkIds; trashedIds?: LinkIds } = {}
): ActivityCommand => ({
  type: "UpdateActivity",
  id,
  at: t2,
  fields: fields as never,
  done: more.done ?? null,
  unknownIds: more.unknownIds ?? noLinkIds,
  trashedIds: more.trashedIds ?? noLinkIds
})

const updated = (changed: Record<string, unknown>): ActivityEvent => ({
  type: "activity.updated",
  data: { changed: changed as never, at: t2 }
})

describe("activityDecider", () => {
  describe("CreateActivity", () => {
    it("records the activity with done_at in its place, open", () => {
      given([]).when(createWith({})).then([created])
      expect(Object.keys(created.data.fields)).toEqual([
        "type",
        "subject",
        "body",
        "due_at",
        "done_at",
        "owner_id",
        "contact_ids",
        "deal_ids",
        "company_ids"
      ])
    })
    it("records a done activity with done_at at the time of the command", () => {
      given([])
        .when(createWith({}, { done: true }))
        .then([
          {
            type: "activity.created",
            data: { ...created.data, fields: { ...created.data.fields, done_at: t0 } }
          }
        ])
    })
    it("refuses an activity linked to nothing, naming the three lists", () => {
      given([])
        .when(createWith({ contact_ids: [] }))
        .thenFails("ValidationError", (e) => {
          expect(e.details.map((d) => d.path)).toEqual(["contact_ids"])
          expect(e.message).toContain("contact_ids")
          expect(e.message).toContain("deal_ids")
          expect(e.message).toContain("company_ids")
        })
    })
    it("takes a deal or a company alone as its link", () => {
      for (const link of ["deal_ids", "company_ids"]) {
        const decided = activityDecider.decide(createWith({ contact_ids: [], [link]: ["x_1"] }), activityDecider.initialState)
        expect(decided._tag).toBe("Success")
      }
    })
    it("points at every unknown linked id in the list it was sent in", () => {
      given([])
        .when(createWith({ deal_ids: ["deal_x"] }, { unknownIds: { contact_ids: ["con_b"], deal_ids: ["deal_x"], company_ids: [] } }))
        .thenFails("ValidationError", (e) => {
          expect(e.details).toEqual([
            { path: "contact_ids[1]", message: "contact con_b does not exist" },
            { path: "deal_ids[0]", message: "deal deal_x does not exist" }
          ])
        })
    })
    it.each(["note", "call", "email"])("refuses a due_at on a %s", (type) => {
      given([])
        .when(createWith({ type }))
        .thenFails("ValidationError", (e) => {
          expect(e.details).toEqual([{ path: "due_at", message: "is only for tasks and meetings" }])
        })
    })
    it.each(["note", "task", "call", "meeting", "email"])("creates a %s without a due_at", (type) => {
      expect(activityDecider.decide(createWith({ type, due_at: null }), activityDecider.initialState)._tag).toBe("Success")
    })
    it("creates a meeting with a due_at", () => {
      expect(activityDecider.decide(createWith({ type: "meeting" }), activityDecider.initialState)._tag).toBe("Success")
    })
    it("refuses an id that is already taken", () => {
      given([created]).when(createWith({})).thenFails("Conflict")
    })
  })

  describe("UpdateActivity", () => {
    it("records only the fields whose value changes", () => {
      given([created])
        .when(patch({ subject: "Send the proposal", body: "v2 attached" }))
        .then([updated({ body: "v2 attached" })])
    })
    it("records nothing when nothing changes", () => {
      given([created])
        .when(patch({ subject: "Send the proposal", contact_ids: ["con_a", "con_b"] }))
        .thenNothingHappens()
    })
    it("marks done at the command's time, keeps the first time when done again, and opens again", () => {
      const done = updated({ done_at: t2 })
      given([created])
        .when(patch({}, { done: true }))
        .then([done])
      given([created, done])
        .when({ ...patch({}, { done: true }), at: "2026-01-04T00:00:00.000Z" })
        .thenNothingHappens()
      given([created, done])
        .when(patch({}, { done: false }))
        .then([updated({ done_at: null })])
      given([created])
        .when(patch({}, { done: false }))
        .thenNothingHappens()
    })
    it("refuses a change of type that leaves a due_at on a type without one, unless it is cleared", () => {
      given([created])
        .when(patch({ type: "note" }))
        .thenFails("ValidationError", (e) => {
          expect(e.details.map((d) => d.path)).toEqual(["due_at"])
          expect(e.details[0]!.message).toContain("clear it")
        })
      given([created])
        .when(patch({ type: "note", due_at: null }))
        .then([updated({ type: "note", due_at: null })])
      given([created])
        .when(patch({ type: "meeting" }))
        .then([updated({ type: "meeting" })])
    })
    it("refuses a due_at given to an activity whose type has none", () => {
      const note: ActivityEvent = { ...created, data: { ...created.data, fields: { ...created.data.fields, type: "note", due_at: null } } }
      given([note])
        .when(patch({ due_at: due }))
        .thenFails("ValidationError", (e) => {
          expect(e.details).toEqual([{ path: "due_at", message: "is only for tasks and meetings" }])
        })
    })
    it("refuses emptying every link, and unknown ids in a patched list", () => {
      given([created])
        .when(patch({ contact_ids: [] }))
        .thenFails("ValidationError", (e) => {
          expect(e.details.map((d) => d.path)).toEqual(["contact_ids"])
        })
      given([created])
        .when(patch({ contact_ids: [], deal_ids: ["deal_1"] }))
        .then([updated({ contact_ids: [], deal_ids: ["deal_1"] })])
      given([created])
        .when(patch({ deal_ids: ["deal_x"] }, { unknownIds: { ...noLinkIds, deal_ids: ["deal_x"] } }))
        .thenFails("ValidationError", (e) => expect(e.details).toEqual([{ path: "deal_ids[0]", message: "deal deal_x does not exist" }]))
    })
    it("keeps the linked records in the trash that a patched list leaves out", () => {
      const trashedIds = { ...noLinkIds, contact_ids: ["con_b"] }
      // The client was shown [con_a]: sending it back changes nothing.
      given([created])
        .when(patch({ contact_ids: ["con_a"] }, { trashedIds }))
        .thenNothingHappens()
      given([created])
        .when(patch({ contact_ids: ["con_c"] }, { trashedIds }))
        .then([updated({ contact_ids: ["con_b", "con_c"] })])
      // A kept trashed link counts as a link: emptying what the client sees is allowed.
      given([created])
        .when(patch({ contact_ids: [] }, { trashedIds: { ...noLinkIds, contact_ids: ["con_a", "con_b"] } }))
        .thenNothingHappens()
    })
    it("is not found on an absent, deleted or purged activity", () => {
      const update = patch({ subject: "x" })
      given([])
        .when(update)
        .thenFails("NotFound", (e) => expect(e.resource).toBe("activity"))
      given([created, deleted]).when(update).thenFails("NotFound")
      given([created, deleted, purged]).when(update).thenFails("NotFound")
    })
  })

  describe("DeleteActivity, RestoreActivity, PurgeActivity", () => {
    it("soft-deletes a live activity once", () => {
      given([created]).when({ type: "DeleteActivity", id, at: t1 }).then([deleted])
      given([created, deleted]).when({ type: "DeleteActivity", id, at: t1 }).thenFails("NotFound")
    })
    it("restores within 30 days, the last millisecond included, and not after", () => {
      given([created, deleted])
        .when({ type: "RestoreActivity", id, at: "2026-02-01T00:00:00.000Z" })
        .then([{ type: "activity.restored", data: { at: "2026-02-01T00:00:00.000Z" } }])
      given([created, deleted]).when({ type: "RestoreActivity", id, at: "2026-02-01T00:00:00.001Z" }).thenFails("NotFound")
      given([created]).when({ type: "RestoreActivity", id, at: t1 }).thenFails("NotFound")
    })
    it("purges only past the recovery window", () => {
      given([created, deleted])
        .when({ type: "PurgeActivity", id, at: "2026-02-01T00:00:00.001Z" })
        .then([{ type: "activity.purged", data: { at: "2026-02-01T00:00:00.001Z" } }])
      given([created, deleted]).when({ type: "PurgeActivity", id, at: "2026-02-01T00:00:00.000Z" }).thenFails("Conflict")
      given([created]).when({ type: "PurgeActivity", id, at: "2027-01-01T00:00:00.000Z" }).thenFails("Conflict")
      given([created, deleted, purged]).when({ type: "PurgeActivity", id, at: "2027-01-01T00:00:00.000Z" }).thenFails("NotFound")
    })
  })

  describe("UnlinkActivityContact (a linked contact's erasure)", () => {
    const unlink = (contactId: string, at = t2): ActivityCommand => ({ type: "UnlinkActivityContact", id, at, contactId })
    const unlinked = (contactId: string): ActivityEvent => ({ type: "activity.contact_unlinked", data: { contact_id: contactId, at: t2 } })
    it("takes the contact out of a live activity that names others, and nothing else", () => {
      given([created])
        .when(unlink("con_a"))
        .then([unlinked("con_a")])
      given([created]).when(unlink("con_z")).thenNothingHappens()
      given([created, unlinked("con_a")])
        .when(unlink("con_a"))
        .thenNothingHappens()
    })
    it("purges at once an activity that named the person alone, live or in the trash", () => {
      const purgedNow: ActivityEvent = { type: "activity.purged", data: { at: t2 } }
      given([created, unlinked("con_a")])
        .when(unlink("con_b"))
        .then([purgedNow])
      given([created, unlinked("con_a"), deleted])
        .when(unlink("con_b"))
        .then([purgedNow])
    })
    it("keeps an activity that still names a deal or a company, in the trash or not", () => {
      const withDeal: ActivityEvent = {
        type: "activity.updated",
        data: { changed: { contact_ids: ["con_a"], deal_ids: ["deal_1"] }, at: t1 }
      }
      given([created, withDeal, deleted])
        .when(unlink("con_a"))
        .then([unlinked("con_a")])
    })
    it("is not found on an absent or purged activity", () => {
      given([]).when(unlink("con_a")).thenFails("NotFound")
      given([created, deleted, purged]).when(unlink("con_a")).thenFails("NotFound")
    })
  })
})
