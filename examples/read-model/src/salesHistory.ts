import type { JsonObject, PromiseEngine, RequestContext } from "@dealstream/core"
import { revenueOf, wonDealOf } from "./wonRevenue.js"

/**
 * A sales history with every way a deal is won and stops being won, then the read model against
 * what the API answers: the won deals it lists, summed the same way.
 */
export const salesHistory = async (crm: PromiseEngine, ctx: RequestContext) => {
  const pipeline = (await crm.pipelines.list(ctx)).data[0]!
  const stages = pipeline["stages"] as ReadonlyArray<JsonObject>
  const stage = (outcome: string | null) => String(stages.find((s) => s["outcome"] === outcome)!["id"])
  const deal = async (name: string, owner: string, value: number, currency = "EUR") =>
    String((await crm.deals.create(ctx, { name, owner_id: owner, value, currency, pipeline_id: pipeline["id"] })).data["id"])
  const won = (id: string) => crm.deals.moveStage(ctx, id, { stage_id: stage("won"), reason: "signed" }, null)

  const moved = await deal("moved into Won", "own_ada", 1000)
  await won(moved)
  const patched = await deal("status won", "own_ada", 250, "USD")
  await crm.deals.update(ctx, patched, { status: "won" }, null)
  const reopened = await deal("won, then reopened", "own_bob", 400)
  await won(reopened)
  await crm.deals.update(ctx, reopened, { status: "open" }, null)
  const deleted = await deal("won, then deleted", "own_bob", 800)
  await won(deleted)
  await crm.deals.delete(ctx, deleted, null)
  const restored = await deal("won, deleted, restored", "own_bob", 300)
  await won(restored)
  await crm.deals.delete(ctx, restored, null)
  await crm.deals.restore(ctx, restored)
  const repriced = await deal("won, then its value changed", "own_ada", 500)
  await won(repriced)
  await crm.deals.update(ctx, repriced, { value: 650 }, null)
  const lost = await deal("lost", "own_ada", 999)
  await crm.deals.moveStage(ctx, lost, { stage_id: stage("lost"), reason: "budget" }, null)
  await deal("still open", "own_bob", 123)
}

/** Won revenue as the API answers it: the deals it lists as won, summed per owner, month and currency. */
export const revenueFromTheApi = async (crm: PromiseEngine, ctx: RequestContext) => {
  const listed = await crm.deals.list(ctx, { status: "won", limit: "100" })
  return revenueOf(listed.data.flatMap((deal) => wonDealOf(ctx.workspaceId, deal) ?? []))
}
