import { describe, expect, it } from "@effect/vitest"
import type { Projected } from "../decider.js"
import type { CompanyEvent } from "./events.js"
import { companyUniqueKey, domainKey, projectCompany } from "./projection.js"

const fold = (events: ReadonlyArray<CompanyEvent>): Projected | null => events.reduce<Projected | null>(projectCompany, null)

const t0 = "2026-03-01T00:00:00.000Z"
const created: CompanyEvent = {
  type: "company.created",
  data: { id: "comp_1", fields: { name: "Acme", domain: "acme.com", size: 3 }, at: t0 }
}
const deleted: CompanyEvent = { type: "company.deleted", data: { at: "2026-03-03T00:00:00.000Z" } }

describe("projectCompany", () => {
  it("builds the document: id, the fields, then the timestamps, also after a custom key is added", () => {
    const doc = fold([created, { type: "company.updated", data: { changed: { tier: "gold", size: 4 }, at: "2026-03-02T00:00:00.000Z" } }])
    expect(doc).toEqual({
      data: {
        id: "comp_1",
        name: "Acme",
        domain: "acme.com",
        size: 4,
        tier: "gold",
        created_at: t0,
        updated_at: "2026-03-02T00:00:00.000Z"
      },
      deletedAt: null
    })
    expect(Object.keys(doc!.data)).toEqual(["id", "name", "domain", "size", "tier", "created_at", "updated_at"])
  })

  it("keeps the data through delete and restore, and drops the document on purge", () => {
    const live = fold([created])
    expect(fold([created, deleted])).toEqual({ data: live!.data, deletedAt: "2026-03-03T00:00:00.000Z" })
    expect(fold([created, deleted, { type: "company.restored", data: { at: "2026-03-04T00:00:00.000Z" } }])).toEqual(live)
    expect(fold([created, deleted, { type: "company.purged", data: { at: "2026-05-01T00:00:00.000Z" } }])).toBeNull()
  })

  it("ignores events on a record it never saw created", () => {
    expect(fold([{ type: "company.updated", data: { changed: { name: "X" }, at: t0 } }])).toBeNull()
    expect(fold([deleted])).toBeNull()
  })
})

describe("companyUniqueKey", () => {
  it("is the lower-cased domain while live", () => {
    expect(companyUniqueKey({ data: { id: "comp_1", name: "Acme", domain: "Acme.COM" }, deletedAt: null })).toBe("domain:acme.com")
    expect(domainKey(" EU.Acme.co.uk ")).toBe("domain:eu.acme.co.uk")
  })

  it("is null for a company without a domain, and for one in the trash", () => {
    expect(companyUniqueKey({ data: { id: "comp_1", name: "Acme", domain: null }, deletedAt: null })).toBeNull()
    expect(companyUniqueKey(fold([created, deleted])!)).toBeNull()
    expect(companyUniqueKey(fold([created])!)).toBe("domain:acme.com")
  })
})
