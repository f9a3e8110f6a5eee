// dealstream's engine in this process, on PostgreSQL: the commands exactly as an embedder calls them.
import { createPromiseEngine, inlineProjection } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import postgres from "postgres"
import { contactFields, dealFields, nextStage, workspaceId } from "./shared.mjs"

const ctx = { workspaceId, requestId: null, actor: "bench" }

/**
 * The inline projection of the commit bench: one row per event of the feed, keyed by its id, in a
 * table of the embedder's, written in the commit's transaction (issue 29).
 */
const EVENT_ROWS = `CREATE TABLE IF NOT EXISTS bench_event_rows (
  event_id text PRIMARY KEY, stream_id text NOT NULL, type text NOT NULL, stream_version integer NOT NULL
)`
const eventRows = inlineProjection({
  name: "bench_event_rows",
  project: (events) => events,
  postgres: (event) => ({
    sql: "INSERT INTO bench_event_rows (event_id, stream_id, type, stream_version) VALUES ($1, $2, $3, $4::integer)",
    params: [event.id, event.stream_id, event.type, event.stream_version]
  })
})

/** `inline`: with the inline projection above, as the system "dealstream + inline projection". */
export const dealstreamSystem = async (url, { poolSize, inline = false }) => {
  if (inline) {
    const sql = postgres(url, { max: 1, onnotice: () => {} })
    await sql.unsafe(EVENT_ROWS)
    await sql.end()
  }
  const crm = await createPromiseEngine(
    PgStorage.layer({ url, maxConnections: poolSize }),
    inline ? { inlineProjections: [eventRows] } : {}
  )
  const pipeline = (await crm.pipelines.list(ctx)).data[0]
  const stages = pipeline.stages.map((s) => s.id)
  return {
    name: inline ? "dealstream + inline projection" : "dealstream",
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
