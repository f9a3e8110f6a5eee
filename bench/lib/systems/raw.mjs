// The raw ceiling: the rows dealstream's commit writes, written by a bare `postgres` client in one
// transaction, with no engine around them. It runs on dealstream's own schema (same tables, same
// indexes, migrated by dealstream) in a database of its own, and writes the same values (event
// data, metadata, document, unique key, search words, folded values) that the engine would.
// The statements of a command are prepared and pipelined between BEGIN and COMMIT: the fastest way
// a client can make them atomic (3 round trips: BEGIN, the statements, COMMIT).
import postgres from "postgres"
import { contactFields, dealFields, engineTemplates, newId, nextStage, workspaceId } from "./shared.mjs"

export const rawSql = {
  insertStream: `INSERT INTO ds_streams (stream_id, workspace_id, version) VALUES ($1, $2, 1)`,
  bumpStream: `UPDATE ds_streams SET version = $3 WHERE stream_id = $1 AND version = $2`,
  insertEvent: `INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
    VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7) RETURNING sequence`,
  upsertDocument: (table) => `INSERT INTO ${table} AS t (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
    VALUES ($1, $2, $3, NULL, $4::jsonb, $5, $6::text[], $7::jsonb)
    ON CONFLICT (workspace_id, id) DO UPDATE SET version = excluded.version, deleted_at = excluded.deleted_at,
      data = excluded.data, unique_key = excluded.unique_key, search_words = excluded.search_words, folded = excluded.folded`
}

/** What the raw ceiling does per command, for RESULTS.md. */
export const rawDescription = [
  "create-contact: `BEGIN`; `INSERT INTO ds_streams` (version 1); `INSERT INTO ds_events … RETURNING sequence` (contact.created); " +
    "`INSERT INTO ds_contacts … ON CONFLICT (workspace_id, id) DO UPDATE` (document, unique email key, search words, folded values); `COMMIT`.",
  "move-stage: `BEGIN`; `UPDATE ds_streams SET version = v+1 WHERE stream_id = $1 AND version = v` (the optimistic check and row lock, " +
    "failing the transaction when no row matches); `INSERT INTO ds_events` (deal.stage_changed); `INSERT INTO ds_deals … ON CONFLICT DO UPDATE` " +
    "(the whole deal document, new stage and updated_at); `INSERT INTO ds_timeline_entries … ON CONFLICT DO UPDATE`; `COMMIT`."
]

const words = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** JavaScript's lowercase of the string values lowercasing changes (dealstream's `folded`). */
const folded = (data) => {
  const out = {}
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "string" && value.toLowerCase() !== value) out[key] = value.toLowerCase()
  }
  return out
}

// Named prepared statements, as postgres.js uses for its tagged queries: parsed and planned once per connection.
const prepared = { prepare: true }

const metadata = (eventId) => JSON.stringify({ actor: "bench", eventId, requestId: null, workspaceId })

export const rawSystem = async (url, { poolSize, stages, pipelineId }) => {
  const sql = postgres(url, { max: poolSize, onnotice: () => {} })
  const upsertContact = rawSql.upsertDocument("ds_contacts")
  const upsertDeal = rawSql.upsertDocument("ds_deals")
  const upsertEntry = rawSql.upsertDocument("ds_timeline_entries")
  const templates = engineTemplates({ stages, pipelineId })

  const writeNew = (tx, id, type, eventData, table, doc, uniqueKey, searchWords, at) => [
    tx.unsafe(rawSql.insertStream, [id, workspaceId], prepared),
    tx.unsafe(rawSql.insertEvent, [id, 1, workspaceId, type, JSON.stringify(eventData), metadata(newId("evt")), at], prepared),
    tx.unsafe(table, [workspaceId, id, 1, JSON.stringify(doc), uniqueKey, searchWords, JSON.stringify(folded(doc))], prepared)
  ]

  return {
    name: "raw ceiling",
    createContact: (tag, n) => {
      const id = newId("con")
      const at = new Date().toISOString()
      const fields = { ...templates.contact, ...contactFields(tag, n) }
      const doc = { id, ...fields, created_at: at, updated_at: at }
      const searchWords = [
        ...new Set([
          ...words(fields.email),
          ...words(fields.first_name),
          ...words(fields.last_name),
          ...words(fields.phone),
          ...words(fields.title),
          fields.email.toLowerCase()
        ])
      ]
      return sql.begin((tx) =>
        writeNew(tx, id, "contact.created", { at, id, fields }, upsertContact, doc, `email:${fields.email.toLowerCase()}`, searchWords, at)
      )
    },
    createDeal: async (n) => {
      const id = newId("deal")
      const at = new Date().toISOString()
      const fields = { ...templates.deal, ...dealFields(n) }
      const doc = { id, ...fields, created_at: at, updated_at: at }
      await sql.begin((tx) => writeNew(tx, id, "deal.created", { at, id, fields }, upsertDeal, doc, null, words(fields.name), at))
      return { id, stage: 0, version: 1, doc }
    },
    moveStage: async (deal) => {
      const to = nextStage(deal.stage, stages.length)
      const at = new Date().toISOString()
      const entryId = newId("tle")
      const version = deal.version + 1
      const doc = { ...deal.doc, stage_id: stages[to], updated_at: at }
      const entry = {
        id: entryId,
        reason: null,
        deal_id: deal.id,
        changed_at: at,
        to_stage_id: stages[to],
        from_stage_id: stages[deal.stage]
      }
      const event = {
        at,
        reason: null,
        entry_id: entryId,
        to_stage_id: stages[to],
        from_stage_id: stages[deal.stage],
        to_pipeline_id: pipelineId,
        from_pipeline_id: pipelineId
      }
      await sql.begin(async (tx) => {
        const [bumped] = await Promise.all([
          tx.unsafe(rawSql.bumpStream, [deal.id, deal.version, version], prepared),
          tx.unsafe(
            rawSql.insertEvent,
            [deal.id, version, workspaceId, "deal.stage_changed", JSON.stringify(event), metadata(newId("evt")), at],
            prepared
          ),
          tx.unsafe(
            upsertDeal,
            [workspaceId, deal.id, version, JSON.stringify(doc), null, words(doc.name), JSON.stringify(folded(doc))],
            prepared
          ),
          tx.unsafe(upsertEntry, [workspaceId, entryId, 1, JSON.stringify(entry), null, [], JSON.stringify(folded(entry))], prepared)
        ])
        if (bumped.count !== 1) throw new Error(`version conflict on ${deal.id}`)
      })
      Object.assign(deal, { stage: to, version, doc })
    },
    close: () => sql.end()
  }
}
