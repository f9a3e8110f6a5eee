import { createPromiseEngine, type PromiseEngine, type RequestContext } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { revenueFromTheApi, salesHistory } from "../../examples/read-model/src/salesHistory.js"
import { revenueOf, wonDealsTable, wonRevenue } from "../../examples/read-model/src/wonRevenue.js"
import { testDatabase } from "../support/pg.js"

// examples/read-model on PostgreSQL (issue 29, item 4): the inline projection's statements write the
// embedder's own table in each deal commit, and the table sums to what the API lists as won.

const database = Effect.runSync(Scope.make())
let url = ""
let crm: PromiseEngine
beforeAll(async () => {
  url = await Effect.runPromise(Scope.provide(testDatabase, database))
  crm = await createPromiseEngine(PgStorage.layer(url), { inlineProjections: [wonRevenue] })
})
afterAll(async () => {
  await crm?.dispose()
  await Effect.runPromise(Scope.close(database, Exit.void))
})

const rowsOf = async (workspaceId: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ owner_id: string | null; month: string; currency: string; value: string }>(
      "SELECT owner_id, month, currency, value FROM won_deals WHERE workspace_id = $1",
      [workspaceId]
    )
    return rows.map((row) => ({ ownerId: row.owner_id, month: row.month, currency: row.currency, value: Number(row.value) }))
  } finally {
    await client.end()
  }
}

describe("won revenue per owner and month, kept by an inline projection (PostgreSQL)", () => {
  it("the embedder's table equals the API's won deals summed", async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(wonDealsTable)
    await client.end()
    const ctx: RequestContext = { workspaceId: "acme_pg", requestId: null, actor: "example" }
    await salesHistory(crm, ctx)
    const kept = revenueOf(await rowsOf(ctx.workspaceId))
    expect(kept.size).toBe(3)
    expect(kept).toEqual(await revenueFromTheApi(crm, ctx))
  })
})
