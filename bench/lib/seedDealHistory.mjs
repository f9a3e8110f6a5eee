// The seed of the pipeline figures scenario: deals with a history of stage changes, every event
// decided by core's own deal decider (creates in the pipeline's first stage, moves along it, into
// Won and Lost and back out) and every document made by core's own deal aggregate (the deal, its
// timeline entries, and the figure documents of deal/figureDocuments.ts), written straight into the
// tables in batches: what the commits of that history would have left, without running them.
import { dealAggregate } from "@dealstream/core"
import postgres from "postgres"
import { createdFieldsFor, settled } from "./engineShapes.mjs"

const DAY = 86_400_000
/** The seeded history's span; every deal is created in it, and its moves follow within weeks. */
const SPAN_DAYS = 730
/** Deals per batch (about 6 events and 13 documents each). */
const BATCH = 1000

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
const b32 = (n, length) => {
  let out = ""
  let rest = BigInt(n)
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(rest & 31n)] + out
    rest >>= 5n
  }
  return out
}
const idOf = (prefix, t, n) => `${prefix}_${b32(t, 10)}${b32(n, 16)}`

/**
 * The stages (indexes into the default pipeline: Lead 0, Qualified 1, Proposal 2, Negotiation 3,
 * Won 4, Lost 5) a deal moves to after its creation in Lead: 3 to 7 moves, 5 on average, so that
 * `deals` deals make 5 × `deals` stage changes. Some end won, some lost, some are lost and reopened,
 * some stay open.
 */
export const PATHS = [
  [1, 2, 5],
  [1, 2, 3, 4],
  [1, 0, 1, 2, 3],
  [1, 2, 3, 2, 3, 4],
  [1, 2, 1, 2, 3, 5, 3]
]
export const MOVES_PER_DEAL = PATHS.reduce((n, path) => n + path.length, 0) / PATHS.length

const CURRENCIES = ["EUR", "USD", "GBP"]
export const OWNERS = Array.from({ length: 20 }, (_, i) => `usr_${String(i).padStart(2, "0")}`)

/** Lowercase JavaScript fold of the string values it changes: the `folded` column (storage-pg's documentRow.ts). */
const foldedOf = (data) =>
  Object.fromEntries(
    Object.entries(data).flatMap(([key, value]) =>
      typeof value === "string" && value.toLowerCase() !== value ? [[key, value.toLowerCase()]] : []
    )
  )

/** Deal i's body, the values it varies (core's create parser and decider give the rest). */
const bodyOf = (i, pipelineId, createdMs) => ({
  name: `Deal ${i}`,
  pipeline_id: pipelineId,
  value: 500 + ((i * 37) % 100_000),
  currency: CURRENCIES[i % CURRENCIES.length],
  owner_id: OWNERS[i % OWNERS.length],
  expected_close_date: new Date(createdMs + (30 + (i % 120)) * DAY).toISOString().slice(0, 10),
  // One deal in ten has a probability of its own.
  ...(i % 10 === 0 ? { probability: 0.6 } : {})
})

/** Deal i's stream: its events as core's decider records them, at their times. */
export const dealStream = (i, { pipeline, startMs, deals, workspaceId }) => {
  const createdMs = startMs + Math.floor((i * SPAN_DAYS * DAY) / deals)
  const id = idOf("deal", createdMs, i)
  const fields = createdFieldsFor("deal", bodyOf(i, pipeline.id, createdMs), pipeline)
  let state = dealAggregate.decider.initialState
  const events = []
  const decide = (command) => {
    for (const event of settled(dealAggregate.decider.decide(command, state), `core's deal decider refuses ${command.type} of ${id}`)) {
      state = dealAggregate.decider.evolve(state, event)
      events.push(event)
    }
  }
  decide({ type: "CreateDeal", id, at: new Date(createdMs).toISOString(), fields, pipeline, unknownContactIds: [] })
  let t = createdMs
  PATHS[i % PATHS.length].forEach((stage, k) => {
    t += (1 + ((i * 7 + k * 13) % 20)) * DAY + ((i * 997) % 3_600_000)
    decide({
      type: "MoveStage",
      id,
      at: new Date(t).toISOString(),
      stageId: pipeline.stages[stage].id,
      reason: stage === 5 ? "budget" : null,
      entryId: idOf("tle", t, i * 8 + k),
      pipeline
    })
  })
  const documents = dealAggregate.documents(
    { workspaceId, id, definitions: [] },
    { before: null, fresh: events, version: events.length, all: events }
  )
  return { id, events, documents }
}

const eventsSql = `INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
  SELECT e.s, e.v, e.w, e.t, e.d, e.m, e.r::timestamptz FROM jsonb_to_recordset($1::text::jsonb) AS e(s text, v int, w text, t text, d jsonb, m jsonb, r text)`
const streamsSql = `INSERT INTO ds_streams (stream_id, workspace_id, version)
  SELECT s.id, s.w, s.v FROM jsonb_to_recordset($1::text::jsonb) AS s(id text, w text, v int)`
const documentsSql = (table) => `INSERT INTO ${table} (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
  SELECT d.w, d.id, d.v, d.del, d.d, d.u, coalesce(d.s, '{}'), d.f
  FROM jsonb_to_recordset($1::text::jsonb) AS d(w text, id text, v int, del text, d jsonb, u text, s text[], f jsonb)`

/** The document tables of core's deal collections (storage-pg's tables.ts). */
const TABLES = {
  deal: "ds_deals",
  timeline_entry: "ds_timeline_entries",
  deal_standing: "ds_deal_standings",
  stage_change: "ds_stage_changes"
}

/**
 * Seeds `deals` deals of `pipeline` (a pipelineInfo of the workspace's default pipeline: Won and
 * Lost close) in `workspaceId`, created over two years ending some weeks before now, each with
 * MOVES_PER_DEAL stage changes on average. Then VACUUM ANALYZE. Returns the seeded span.
 */
export const seedDealHistory = async ({ url, workspaceId, pipeline, deals, log }) => {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const startMs = Date.now() - (SPAN_DAYS + 160) * DAY
  const started = Date.now()
  // The workspace and its pipeline, made by the engine a moment ago, dated from before the history,
  // so that the pipeline as of any instant of it (summary as_of) is the one its deals were in.
  const made = new Date(startMs - DAY).toISOString()
  await sql`UPDATE ds_events SET data = jsonb_set(data, '{at}', to_jsonb(${made}::text)), recorded_at = ${made}::timestamptz
    WHERE workspace_id = ${workspaceId}`
  await sql`UPDATE ds_pipelines SET data = data || jsonb_build_object('created_at', ${made}::text, 'updated_at', ${made}::text)
    WHERE workspace_id = ${workspaceId}`
  let lastLogged = started
  let events = 0
  for (let lo = 0; lo < deals; lo += BATCH) {
    const rows = { events: [], streams: [], documents: Object.fromEntries(Object.keys(TABLES).map((c) => [c, []])) }
    for (let i = lo; i < Math.min(deals, lo + BATCH); i++) {
      const stream = dealStream(i, { pipeline, startMs, deals, workspaceId })
      rows.events.push(
        ...stream.events.map((event, v) => ({
          s: stream.id,
          v: v + 1,
          w: workspaceId,
          t: event.type,
          d: event.data,
          m: { workspaceId, eventId: idOf("evt", Date.parse(event.data.at), i * 8 + v), requestId: null, actor: "bench-seed" },
          r: event.data.at
        }))
      )
      rows.streams.push({ id: stream.id, w: workspaceId, v: stream.events.length })
      for (const write of stream.documents) {
        if (write._tag !== "Upsert") throw new Error(`core's deal aggregate removes ${write.collection} ${write.id} from a new deal`)
        rows.documents[write.collection].push({
          w: write.workspaceId,
          id: write.id,
          v: write.version,
          del: write.deletedAt,
          d: write.data,
          u: write.uniqueKey,
          s: write.searchWords,
          f: foldedOf(write.data)
        })
      }
      events += stream.events.length
    }
    await sql.begin(async (tx) => {
      await tx.unsafe(eventsSql, [JSON.stringify(rows.events)])
      await tx.unsafe(streamsSql, [JSON.stringify(rows.streams)])
      for (const [collection, table] of Object.entries(TABLES))
        await tx.unsafe(documentsSql(table), [JSON.stringify(rows.documents[collection])])
    })
    if (Date.now() - lastLogged > 5000 || lo + BATCH >= deals) {
      lastLogged = Date.now()
      log(
        `  seeding deals: ${Math.min(deals, lo + BATCH).toLocaleString("en-US")}/${deals.toLocaleString("en-US")} (${((Date.now() - started) / 1000).toFixed(0)} s)`
      )
    }
  }
  log("  seeding: VACUUM ANALYZE")
  await sql`VACUUM ANALYZE`
  await sql.end()
  return { startMs, endMs: startMs + (SPAN_DAYS + 160) * DAY, events, seconds: (Date.now() - started) / 1000 }
}
