// dealstream's engine in this process, on PostgreSQL: the commands exactly as an embedder calls them.
import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { contactFields, dealFields, nextStage, workspaceId } from "./shared.mjs"

const ctx = { workspaceId, requestId: null, actor: "bench" }

export const dealstreamSystem = async (url, { poolSize }) => {
  const crm = await createPromiseEngine(PgStorage.layer({ url, maxConnections: poolSize }))
  const pipeline = (await crm.pipelines.list(ctx)).data[0]
  const stages = pipeline.stages.map((s) => s.id)
  return {
    name: "dealstream",
    crm,
    stages,
    pipelineId: pipeline.id,
    createContact: (tag, n) => crm.contacts.create(ctx, contactFields(tag, n)),
    createDeal: async (n) => {
      const { data } = await crm.deals.create(ctx, { ...dealFields(n), pipeline_id: pipeline.id })
      return { id: data.id, stage: 0 }
    },
    moveStage: async (deal) => {
      const to = nextStage(deal.stage, stages.length)
      await crm.deals.moveStage(ctx, deal.id, { stage_id: stages[to] }, null)
      deal.stage = to
    },
    close: () => crm.dispose()
  }
}
