import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPromiseEngine, type JsonObject, type PromiseEngine, type RequestContext } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { salesHistory } from "./salesHistory.js"
import { linesOf, writeWonDeals } from "./wonDealLines.js"

/**
 * The live deals whose timeline, as the API shows it, has a move into a won stage, and the ids of
 * the deals in the trash (whose timelines the API no longer shows).
 */
const winsFromTheApi = async (crm: PromiseEngine, ctx: RequestContext) => {
  const live = (await crm.deals.list(ctx, { limit: "100" })).data.map((deal) => String(deal["id"]))
  const wins = new Set<string>()
  for (const id of live) {
    const timeline = await crm.deals.timeline(ctx, id, { limit: "100" })
    if (timeline.data.some((entry: JsonObject) => entry["to_status"] === "won")) wins.add(id)
  }
  const trashed = new Set((await crm.trash.list(ctx, { type: "deal", limit: "100" })).data.map((entry) => String(entry["id"])))
  return { live: new Set(live), wins, trashed }
}

/** Until the file holds `count` lines: the consumer runs after the commits, on its own. */
const linesWhen = async (file: string, count: number) => {
  for (let tries = 0; tries < 500; tries++) {
    const lines = linesOf(file)
    if (lines.length >= count) return lines
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`the consumer wrote ${linesOf(file).length} of ${count} lines`)
}

describe("a line per won deal, written by a consumer (memory storage)", () => {
  let crm: PromiseEngine
  let dir: string
  beforeAll(async () => {
    crm = await createPromiseEngine(MemoryStorage.layer)
    dir = mkdtempSync(join(tmpdir(), "won-deals-"))
  })
  afterAll(async () => {
    await crm.dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  it("writes each deal the API shows won once, and a rebuild from the start writes nothing twice", async () => {
    const ctx: RequestContext = { workspaceId: "acme_lines", requestId: null, actor: "example" }
    const file = join(dir, "won.jsonl")
    const consumer = await writeWonDeals(crm, { workspaceId: ctx.workspaceId, file })
    await salesHistory(crm, ctx)
    const { live, trashed, wins } = await winsFromTheApi(crm, ctx)
    // Every live deal won once is one line; so is the won deal deleted since, in the trash now.
    const lines = await linesWhen(file, wins.size + 1)
    expect(lines).toHaveLength(wins.size + 1)
    expect(new Set(lines.map((line) => line.deal_id).filter((id) => live.has(id)))).toEqual(wins)
    expect(lines.filter((line) => !live.has(line.deal_id)).map((line) => trashed.has(line.deal_id))).toEqual([true])

    // Delivered again from the oldest event (a rebuild, or a crash before the checkpoint): the
    // events are handled a second time, and the file is what keeps them from being written twice.
    await consumer.stop()
    await crm.consumers.reset({ name: "won-deals-file", workspaceId: ctx.workspaceId, from: null })
    const again = await writeWonDeals(crm, { workspaceId: ctx.workspaceId, file })
    const pipeline = (await crm.pipelines.list(ctx)).data[0]!
    const marker = await crm.deals.create(ctx, { name: "after the rebuild", value: 1, currency: "EUR", pipeline_id: pipeline["id"] })
    await crm.deals.update(ctx, String(marker.data["id"]), { status: "won" }, null)
    const after = await linesWhen(file, lines.length + 1)
    expect(after.map((line) => line.deal_id)).toEqual([...lines.map((line) => line.deal_id), String(marker.data["id"])])
    await again.stop()
  })
})
