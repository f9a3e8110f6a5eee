import { createPromiseEngine, type JsonObject, type RequestContext } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"

/**
 * A contact, a deal of theirs moved one stage on, and its timeline: dealstream from a program that
 * knows nothing of Effect. Every operation returns a Promise; a refusal rejects with the domain
 * error itself (`_tag` "ValidationError", "NotFound", "Conflict", "PreconditionFailed").
 */
export const firstDeal = async () => {
  // MemoryStorage keeps nothing across restarts; PgStorage.layer(url) from @dealstream/storage-pg does.
  const crm = await createPromiseEngine(MemoryStorage.layer)
  try {
    const ctx: RequestContext = { workspaceId: "acme", requestId: null, actor: "example" }
    const ada = await crm.contacts.create(ctx, { email: "ada@example.com", first_name: "Ada" })
    const sales = (await crm.pipelines.list(ctx)).data[0]!
    const stages = sales["stages"] as ReadonlyArray<JsonObject>
    const deal = await crm.deals.create(ctx, {
      name: "Pilot",
      pipeline_id: sales["id"],
      value: 5000,
      currency: "EUR",
      contact_ids: [ada.data["id"]]
    })
    await crm.deals.moveStage(ctx, deal.data["id"] as string, { stage_id: stages[1]!["id"], reason: "demo went well" }, null)
    const timeline = await crm.deals.timeline(ctx, deal.data["id"] as string, {})
    // The same email again: the engine refuses it, and the Promise rejects with the Conflict.
    const refused = await crm.contacts.create(ctx, { email: "ADA@example.com" }).then(
      () => null,
      (error: { _tag: string }) => error._tag
    )
    return { contact: ada.data, deal: deal.data, timeline: timeline.data, refused }
  } finally {
    await crm.dispose()
  }
}
