import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { ContactEvent } from "./events.js"
import { contactDecider } from "./decider.js"

const given = DeciderSpecification.for(contactDecider)

const id = "con_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const fields = {
  email: "ada@example.com",
  first_name: "Ada",
  last_name: null,
  phone: null,
  title: null,
  company_id: null,
  source: null,
  owner_id: null
}
const created: ContactEvent = { type: "contact.created", data: { id, fields, at: t0 } }
const deleted: ContactEvent = { type: "contact.deleted", data: { at: t1 } }
const purged: ContactEvent = { type: "contact.purged", data: { at: "2026-03-01T00:00:00.000Z" } }
const thirtyDaysAfterDelete = "2026-02-01T00:00:00.000Z"
const justOverThirtyDays = "2026-02-01T00:00:00.001Z"

describe("contactDecider", () => {
  describe("CreateContact", () => {
    it("records the contact with its fields", () => {
      given([]).when({ type: "CreateContact", id, at: t0, fields }).then([created])
    })
    it("refuses an id that is already taken", () => {
      given([created]).when({ type: "CreateContact", id, at: t1, fields }).thenFails("Conflict")
    })
  })

  describe("UpdateContact", () => {
    it("records only the fields whose value changes", () => {
      given([created])
        .when({ type: "UpdateContact", id, at: t1, fields: { first_name: "Ada", last_name: "Lovelace" } })
        .then([{ type: "contact.updated", data: { changed: { last_name: "Lovelace" }, at: t1 } }])
    })
    it("records nothing when nothing changes", () => {
      given([created])
        .when({ type: "UpdateContact", id, at: t1, fields: { email: "ada@example.com" } })
        .thenNothingHappens()
    })
    it("treats clearing a custom field that was never set as no change", () => {
      given([created])
        .when({ type: "UpdateContact", id, at: t1, fields: { industry: null } })
        .thenNothingHappens()
    })
    it("sets a custom field", () => {
      given([created])
        .when({ type: "UpdateContact", id, at: t1, fields: { industry: "saas" } })
        .then([{ type: "contact.updated", data: { changed: { industry: "saas" }, at: t1 } }])
    })
    it("refuses companies that are not live at the paths that named them, recording nothing", () => {
      const unknownCompanies = [{ id: "comp_9", path: "company_ids[1]" }]
      given([created])
        .when({ type: "UpdateContact", id, at: t1, fields: { company_id: "comp_1", company_ids: ["comp_1", "comp_9"] }, unknownCompanies })
        .thenFails("ValidationError", (e) =>
          expect(e.details).toEqual([{ path: "company_ids[1]", message: "company comp_9 does not exist" }])
        )
      given([])
        .when({ type: "CreateContact", id, at: t0, fields, unknownCompanies: [{ id: "comp_9", path: "company_id" }] })
        .thenFails("ValidationError", (e) => expect(e.details[0]?.path).toBe("company_id"))
    })
    it("keeps the linked companies in the trash when the companies are patched, a trashed primary too when company_id is null", () => {
      const linked: ContactEvent = {
        type: "contact.updated",
        data: { changed: { company_id: "comp_a", company_ids: ["comp_a", "comp_b", "comp_c"] }, at: t1 }
      }
      const at = "2026-01-03T00:00:00.000Z"
      // The client was shown company_id null and [comp_c] (comp_a and comp_b in the trash): sent back, nothing changes.
      given([created, linked])
        .when({
          type: "UpdateContact",
          id,
          at,
          fields: { company_id: null, company_ids: ["comp_c"] },
          trashedCompanyIds: ["comp_a", "comp_b"]
        })
        .thenNothingHappens()
      given([created, linked])
        .when({ type: "UpdateContact", id, at, fields: { company_id: "comp_d", company_ids: ["comp_d"] }, trashedCompanyIds: ["comp_b"] })
        .then([{ type: "contact.updated", data: { changed: { company_id: "comp_d", company_ids: ["comp_d", "comp_b"] }, at } }])
    })
    it("is not found on an absent, deleted or purged contact", () => {
      const update = { type: "UpdateContact", id, at: t1, fields: { first_name: "X" } } as const
      given([])
        .when(update)
        .thenFails("NotFound", (e) => expect(e.resource).toBe("contact"))
      given([created, deleted]).when(update).thenFails("NotFound")
      given([created, deleted, purged]).when(update).thenFails("NotFound")
    })
  })

  describe("DeleteContact", () => {
    it("soft-deletes a live contact", () => {
      given([created]).when({ type: "DeleteContact", id, at: t1 }).then([deleted])
    })
    it("is not found when already deleted or absent", () => {
      given([created, deleted]).when({ type: "DeleteContact", id, at: t1 }).thenFails("NotFound")
      given([]).when({ type: "DeleteContact", id, at: t1 }).thenFails("NotFound")
    })
  })

  describe("RestoreContact", () => {
    it("restores within 30 days, the last millisecond included", () => {
      given([created, deleted])
        .when({ type: "RestoreContact", id, at: thirtyDaysAfterDelete })
        .then([{ type: "contact.restored", data: { at: thirtyDaysAfterDelete } }])
    })
    it("is not found after 30 days", () => {
      given([created, deleted]).when({ type: "RestoreContact", id, at: justOverThirtyDays }).thenFails("NotFound")
    })
    it("is not found on a live, absent or purged contact", () => {
      given([created]).when({ type: "RestoreContact", id, at: t1 }).thenFails("NotFound")
      given([]).when({ type: "RestoreContact", id, at: t1 }).thenFails("NotFound")
      given([created, deleted, purged]).when({ type: "RestoreContact", id, at: t1 }).thenFails("NotFound")
    })
  })

  describe("PurgeContact", () => {
    it("purges a contact deleted more than 30 days ago", () => {
      given([created, deleted])
        .when({ type: "PurgeContact", id, at: justOverThirtyDays })
        .then([{ type: "contact.purged", data: { at: justOverThirtyDays } }])
    })
    it("is a conflict while the contact is recoverable or live", () => {
      given([created, deleted]).when({ type: "PurgeContact", id, at: thirtyDaysAfterDelete }).thenFails("Conflict")
      given([created]).when({ type: "PurgeContact", id, at: justOverThirtyDays }).thenFails("Conflict")
    })
    it("is not found on an absent or already purged contact", () => {
      given([]).when({ type: "PurgeContact", id, at: t1 }).thenFails("NotFound")
      given([created, deleted, purged]).when({ type: "PurgeContact", id, at: "2027-01-01T00:00:00.000Z" }).thenFails("NotFound")
    })
  })

  describe("EraseContact", () => {
    const erased: ContactEvent = { type: "contact.erased", data: { at: t1 } }
    it("erases a live contact at once, whatever the window", () => {
      given([created]).when({ type: "EraseContact", id, at: t1 }).then([erased])
    })
    it("erases a contact in the trash, within the window or past it", () => {
      given([created, deleted])
        .when({ type: "EraseContact", id, at: t1 })
        .then([{ type: "contact.erased", data: { at: t1 } }])
      given([created, deleted])
        .when({ type: "EraseContact", id, at: justOverThirtyDays })
        .then([{ type: "contact.erased", data: { at: justOverThirtyDays } }])
    })
    it("is not found on an absent, purged or erased contact", () => {
      given([]).when({ type: "EraseContact", id, at: t1 }).thenFails("NotFound")
      given([created, deleted, purged]).when({ type: "EraseContact", id, at: t1 }).thenFails("NotFound")
      given([created, erased]).when({ type: "EraseContact", id, at: t1 }).thenFails("NotFound")
    })
    it("leaves nothing to restore, update or purge", () => {
      given([created, erased]).when({ type: "RestoreContact", id, at: t1 }).thenFails("NotFound")
      given([created, erased])
        .when({ type: "UpdateContact", id, at: t1, fields: { first_name: "Back" } })
        .thenFails("NotFound")
      given([created, erased]).when({ type: "PurgeContact", id, at: justOverThirtyDays }).thenFails("NotFound")
    })
  })
})
