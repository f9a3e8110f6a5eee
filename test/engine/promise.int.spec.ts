import {
  createPromiseEngine,
  type DealRule,
  fieldsAfter,
  inlineStore,
  type NotFound,
  type ProjectionFailed,
  ValidationError
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "vitest"
import { contactEmails } from "./inlineProjections.js"

const ctx = { workspaceId: "acme", requestId: null, actor: "embedder" }

describe("Promise facade", () => {
  it("runs engine operations as promises and rejects with the tagged domain error", async () => {
    const crm = await createPromiseEngine(MemoryStorage.layer)
    try {
      const created = await crm.contacts.create(ctx, { email: "p@x.io" })
      const id = created.data["id"] as string
      expect((await crm.contacts.get(ctx, id, null)).data["email"]).toBe("p@x.io")
      await crm.contacts.delete(ctx, id, null)
      const error = await crm.contacts.get(ctx, id, null).then(
        () => null,
        (e: NotFound) => e
      )
      expect(error?._tag).toBe("NotFound")
      expect(await crm.purgeExpired()).toBe(0)
    } finally {
      await crm.dispose()
    }
  })

  it("checks the deal rules it is given inside the decider", async () => {
    const noPilots: DealRule = (_command, _state, decision) =>
      fieldsAfter(decision)["name"] === "Pilot" ? ValidationError.at("name", "pilots are not sold here") : undefined
    const crm = await createPromiseEngine(MemoryStorage.layer, { dealRules: [noPilots] })
    try {
      const pipeline_id = (await crm.pipelines.list(ctx)).data[0]!["id"]
      const refused = await crm.deals.create(ctx, { name: "Pilot", pipeline_id }).then(
        () => null,
        (e: ValidationError) => e
      )
      expect(refused?.details).toEqual([{ path: "name", message: "pilots are not sold here" }])
      expect((await crm.deals.create(ctx, { name: "Renewal", pipeline_id })).data["name"]).toBe("Renewal")
      expect((await crm.deals.list(ctx, {})).data.map((d) => d["name"])).toEqual(["Renewal"])
    } finally {
      await crm.dispose()
    }
  })

  it("runs the inline projections it is given in every commit, and rejects with ProjectionFailed when one fails", async () => {
    const store = inlineStore<ReadonlyMap<string, string>>(new Map())
    const crm = await createPromiseEngine(MemoryStorage.layer, { inlineProjections: [contactEmails(store)] })
    try {
      const ada = await crm.contacts.create(ctx, { email: "ada@x.io" })
      expect([...store.current()]).toEqual([[ada.data["id"], "ada@x.io"]])
      const failed = await crm.contacts.create(ctx, { email: "throw@x.io" }).then(
        () => null,
        (e: ProjectionFailed) => e
      )
      expect(failed?._tag).toBe("ProjectionFailed")
      expect((await crm.contacts.list(ctx, {})).data.map((c) => c["email"])).toEqual(["ada@x.io"])
    } finally {
      await crm.dispose()
    }
  })
})
