import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { CompanyEvent } from "./events.js"
import { companyDecider } from "./decider.js"

const given = DeciderSpecification.for(companyDecider)

const id = "comp_1"
const t0 = "2026-03-01T00:00:00.000Z"
const t1 = "2026-03-02T00:00:00.000Z"
const fields = { name: "Acme", domain: "acme.com", industry: null, size: 12, owner_id: null }
const created: CompanyEvent = { type: "company.created", data: { id, fields, at: t0 } }
const deleted: CompanyEvent = { type: "company.deleted", data: { at: t1 } }
const purged: CompanyEvent = { type: "company.purged", data: { at: "2026-05-01T00:00:00.000Z" } }
// Deleted at t1; 30 days later to the millisecond, then one millisecond more.
const lastRecoverableInstant = "2026-04-01T00:00:00.000Z"
const firstPurgeableInstant = "2026-04-01T00:00:00.001Z"

describe("companyDecider", () => {
  describe("CreateCompany", () => {
    it("records the company with its fields", () => {
      given([]).when({ type: "CreateCompany", id, at: t0, fields }).then([created])
    })
    it("refuses an id already taken, whatever became of it", () => {
      given([created])
        .when({ type: "CreateCompany", id, at: t1, fields })
        .thenFails("Conflict", (e) => expect(e.details[0]?.id).toBe(id))
      given([created, deleted]).when({ type: "CreateCompany", id, at: t1, fields }).thenFails("Conflict")
    })
  })

  describe("UpdateCompany", () => {
    it("records only the fields whose value changes", () => {
      given([created])
        .when({ type: "UpdateCompany", id, at: t1, fields: { name: "Acme", size: 40, industry: "rockets" } })
        .then([{ type: "company.updated", data: { changed: { size: 40, industry: "rockets" }, at: t1 } }])
    })
    it("records the changes of a later update against the earlier one", () => {
      const grown: CompanyEvent = { type: "company.updated", data: { changed: { size: 40 }, at: t1 } }
      given([created, grown])
        .when({ type: "UpdateCompany", id, at: t1, fields: { size: 40 } })
        .thenNothingHappens()
      given([created, grown])
        .when({ type: "UpdateCompany", id, at: t1, fields: { size: 12 } })
        .then([{ type: "company.updated", data: { changed: { size: 12 }, at: t1 } }])
    })
    it("records nothing when nothing changes, a never-set custom field cleared included", () => {
      given([created])
        .when({ type: "UpdateCompany", id, at: t1, fields: { domain: "acme.com", tier: null } })
        .thenNothingHappens()
    })
    it("is not found on an absent, deleted or purged company", () => {
      const update = { type: "UpdateCompany", id, at: t1, fields: { name: "X" } } as const
      given([])
        .when(update)
        .thenFails("NotFound", (e) => expect([e.resource, e.id]).toEqual(["company", id]))
      given([created, deleted]).when(update).thenFails("NotFound")
      given([created, deleted, purged]).when(update).thenFails("NotFound")
    })
  })

  describe("DeleteCompany", () => {
    it("soft-deletes a live company", () => {
      given([created]).when({ type: "DeleteCompany", id, at: t1 }).then([deleted])
    })
    it("is not found when absent or already deleted", () => {
      given([]).when({ type: "DeleteCompany", id, at: t1 }).thenFails("NotFound")
      given([created, deleted]).when({ type: "DeleteCompany", id, at: t1 }).thenFails("NotFound")
    })
  })

  describe("RestoreCompany", () => {
    it("restores up to 30 days after the delete, the last millisecond included", () => {
      given([created, deleted])
        .when({ type: "RestoreCompany", id, at: lastRecoverableInstant })
        .then([{ type: "company.restored", data: { at: lastRecoverableInstant } }])
    })
    it("is not found past the window, or on a live, absent or purged company", () => {
      given([created, deleted]).when({ type: "RestoreCompany", id, at: firstPurgeableInstant }).thenFails("NotFound")
      given([created]).when({ type: "RestoreCompany", id, at: t1 }).thenFails("NotFound")
      given([]).when({ type: "RestoreCompany", id, at: t1 }).thenFails("NotFound")
      given([created, deleted, purged]).when({ type: "RestoreCompany", id, at: t1 }).thenFails("NotFound")
    })
    it("lets a restored company be updated and deleted again", () => {
      const restored: CompanyEvent = { type: "company.restored", data: { at: t1 } }
      given([created, deleted, restored])
        .when({ type: "UpdateCompany", id, at: t1, fields: { name: "Acme Two" } })
        .then([{ type: "company.updated", data: { changed: { name: "Acme Two" }, at: t1 } }])
      given([created, deleted, restored]).when({ type: "DeleteCompany", id, at: t1 }).then([deleted])
    })
  })

  describe("PurgeCompany", () => {
    it("purges a company deleted more than 30 days ago", () => {
      given([created, deleted])
        .when({ type: "PurgeCompany", id, at: firstPurgeableInstant })
        .then([{ type: "company.purged", data: { at: firstPurgeableInstant } }])
    })
    it("is a conflict while the company is live or still recoverable", () => {
      given([created, deleted]).when({ type: "PurgeCompany", id, at: lastRecoverableInstant }).thenFails("Conflict")
      given([created]).when({ type: "PurgeCompany", id, at: firstPurgeableInstant }).thenFails("Conflict")
    })
    it("is not found on an absent or already purged company", () => {
      given([]).when({ type: "PurgeCompany", id, at: t1 }).thenFails("NotFound")
      given([created, deleted, purged]).when({ type: "PurgeCompany", id, at: "2027-01-01T00:00:00.000Z" }).thenFails("NotFound")
    })
  })
})
