import { createPromiseEngine, type PromiseEngine, type RequestContext } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { revenueFromTheApi, salesHistory } from "./salesHistory.js"
import { revenueOf, wonDeals, wonRevenue } from "./wonRevenue.js"

describe("won revenue per owner and month, kept by an inline projection (memory storage)", () => {
  let crm: PromiseEngine
  beforeAll(async () => {
    crm = await createPromiseEngine(MemoryStorage.layer, { inlineProjections: [wonRevenue] })
  })
  afterAll(() => crm.dispose())

  it("equals the API's won deals summed, after deals are won, reopened, deleted, restored and repriced", async () => {
    const ctx: RequestContext = { workspaceId: "acme_memory", requestId: null, actor: "example" }
    await salesHistory(crm, ctx)
    const kept = [...wonDeals.current().values()].filter((row) => row.workspaceId === ctx.workspaceId)
    const month = new Date().toISOString().slice(0, 7)
    expect(revenueOf(kept)).toEqual(
      new Map([
        [`own_ada|${month}|EUR`, 1650],
        [`own_ada|${month}|USD`, 250],
        [`own_bob|${month}|EUR`, 300]
      ])
    )
    expect(revenueOf(kept)).toEqual(await revenueFromTheApi(crm, ctx))
  })
})
