// Emmett's PostgreSQL event store: one appendToStream of one event per command, on its own schema
// (created by Emmett on first use) in a database of its own, through Emmett's own pool (a
// node-postgres Pool of its default size, 10 connections, like the other systems). Moves append
// with the expected stream version, as a command handler would after reading the stream; that read
// is not part of the figure.
import { getPostgreSQLEventStore } from "@event-driven-io/emmett-postgresql"
import { contactFields, dealFields, engineTemplates, newId, nextStage, workspaceId } from "./shared.mjs"

/** The commands as appends to `store`: one event each, with dealstream's event data. */
export const emmettCommands = (store, { stages, pipelineId }) => {
  const metadata = () => ({ actor: "bench", requestId: null, workspaceId })
  const templates = engineTemplates({ stages, pipelineId })
  return {
    createContact: (tag, n) => {
      const id = newId("con")
      const at = new Date().toISOString()
      return store.appendToStream(`contact-${id}`, [
        { type: "contact.created", data: { at, id, fields: { ...templates.contact, ...contactFields(tag, n) } }, metadata: metadata() }
      ])
    },
    createDeal: async (n) => {
      const id = newId("deal")
      const at = new Date().toISOString()
      const fields = { ...templates.deal, ...dealFields(n) }
      await store.appendToStream(`deal-${id}`, [{ type: "deal.created", data: { at, id, fields }, metadata: metadata() }])
      return { id, stage: 0, version: 1n }
    },
    moveStage: async (deal) => {
      const to = nextStage(deal.stage, stages.length)
      const at = new Date().toISOString()
      const result = await store.appendToStream(
        `deal-${deal.id}`,
        [
          {
            type: "deal.stage_changed",
            data: {
              at,
              reason: null,
              entry_id: newId("tle"),
              to_stage_id: stages[to],
              from_stage_id: stages[deal.stage],
              to_pipeline_id: pipelineId,
              from_pipeline_id: pipelineId
            },
            metadata: metadata()
          }
        ],
        { expectedStreamVersion: deal.version }
      )
      deal.stage = to
      deal.version = result.nextExpectedStreamVersion
    }
  }
}

export const emmettSystem = async (url, shared) => {
  const store = getPostgreSQLEventStore(url)
  return { name: "Emmett", ...emmettCommands(store, shared), close: () => store.close() }
}
