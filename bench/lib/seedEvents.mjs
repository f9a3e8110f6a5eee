// The fast path for the feed scenario: a long event log of one workspace written straight into
// ds_events with INSERT … SELECT over generate_series, in the shape the engine writes (the events'
// data as the deciders make it, metadata {actor, eventId, payload, requestId, workspaceId} with the
// payload as the outbox stores it at commit, xact_id from the column's default), and the streams'
// ds_streams rows. No documents: the feed reads the log only. The created records' fields are the
// ones core's parsers and deciders give (engineShapes.mjs). `verifyStreams` puts every event of
// some streams to core's deciders (replay.mjs), folds them with core's own projections and payload
// rule and compares every stored payload with the result.
import {
  contactView,
  DEFAULT_STAGES,
  payloadDataFor,
  projectContact,
  projectDeal,
  showingLiveContacts,
  weightedValueOf
} from "@dealstream/core"
import { isDeepStrictEqual } from "node:util"
import postgres from "postgres"
import { contactViewAddsSql, createdFieldsSql } from "./engineShapes.mjs"
import { replayer } from "./replay.mjs"
import { ALPHABET, b32, FIRST_NAMES, LAST_NAMES, SOURCES, TITLES } from "./seed.mjs"

const COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell", "Cyberdyne", "Wonka"]
const DEAL_WORDS = ["Pilot", "Renewal", "Expansion", "Upgrade", "Migration", "Onboarding", "Enterprise", "Starter"]

/** The seeded commands' actor, an API key id as the host records it; marks seeded events. */
export const SEED_ACTOR = "key_5eed5eed5eed"

/**
 * One group of 10 events, in this order, repeated: two contacts and a deal of the first one, the
 * deal walking the first four stages and back one. Per 10 events: 2 contact.created, 3
 * contact.updated, 1 deal.created, 4 deal.stage_changed.
 */
export const GROUP = [
  "contact.created", // 0: contact c
  "contact.updated", // 1: c's title
  "deal.created", // 2: deal d of c, first stage
  "deal.stage_changed", // 3: d, stage 1 → 2
  "contact.updated", // 4: c's phone (c now shows deal_ids [d])
  "deal.stage_changed", // 5: d, stage 2 → 3
  "contact.created", // 6: contact c2
  "deal.stage_changed", // 7: d, stage 3 → 4
  "contact.updated", // 8: c2's owner
  "deal.stage_changed" // 9: d, stage 4 → 3
]
const VERSIONS = { c: 3, c2: 2, d: 5 }

/** Events of one group lie this far apart; a group spans 10 steps. */
const STEP_MS = 3000
/** Groups per INSERT statement, each its own transaction (so its own xact_id): 20,000 events. */
const BATCH_GROUPS = 2000

const b32js = (n, len) => {
  let out = ""
  for (let i = len - 1; i >= 0; i--) out += i >= 12 ? "0" : ALPHABET[Number((BigInt(n) >> BigInt(5 * i)) & 31n)]
  return out
}

/** An engine-format id (prefix, 10 characters of time, 16 more) from a time and a number. */
const id = (prefix, t, n) => `'${prefix}_' || ${b32(t, 10)} || ${b32(n, 16)}`

/** Event i of a group: its time in ms and its 1-based number in the seeded log. */
const tOf = (i) => `(v.t + ${i * STEP_MS})`
const nOf = (i) => `(10 * v.g + ${i + 1})`
const iso = (ms) => `to_char(to_timestamp((${ms}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
const at = (i) => iso(tOf(i))

/** A stage change of d from stage index `from` to `to` (1-based in $11), event i of the group: [data, payload]. */
const stageChange = (i, from, to, reason) => {
  const entry = id("tle", tOf(i), nOf(i))
  const data = `jsonb_build_object('at', ${at(i)}, 'entry_id', ${entry}, 'from_pipeline_id', $10::text, 'to_pipeline_id', $10::text,
      'from_stage_id', ($11::text[])[${from}], 'to_stage_id', ($11::text[])[${to}], 'reason', '${reason}',
      'from_status', 'open', 'to_status', 'open')`
  const payload = `jsonb_build_object(
      'deal', v.d_2 || jsonb_build_object('stage_id', ($11::text[])[${to}], 'stage_entered_at', ${at(i)}, 'updated_at', ${at(i)},
        'weighted_value', round((v.d_fields ->> 'value')::numeric * ($14::numeric[])[${to}], 2)),
      'timeline_entry', jsonb_build_object('id', ${entry}, 'deal_id', v.d, 'from_stage_id', ($11::text[])[${from}],
        'to_stage_id', ($11::text[])[${to}], 'from_status', 'open', 'to_status', 'open', 'reason', '${reason}', 'changed_at', ${at(i)}))`
  return [data, payload]
}

// Per group g: the ids and fields of its contacts c, c2 and deal d (values varied as lib/seed.mjs
// varies them, every other field as core gives it: engineShapes.mjs), then the records as the API
// shows them after their creation (c_0, c2_0, d_2; a contact's view adds what core's contactView
// adds, deal_ids); each later payload is one of these with the changed keys laid over it (jsonb ||).
// Then 10 rows per group, in the order of GROUP.
const groupBatch = () => `
WITH k AS MATERIALIZED (
  SELECT g, $3::bigint + 10 * g * ${STEP_MS} AS t FROM generate_series($1::bigint, $2::bigint) AS g
), f AS MATERIALIZED (
  SELECT g, t,
    ${id("con", "t", "2 * g")} AS c,
    ${id("con", `t + ${6 * STEP_MS}`, "2 * g + 1")} AS c2,
    ${id("deal", `t + ${2 * STEP_MS}`, "g")} AS d,
    ${createdFieldsSql("contact", {
      email:
        "lower(($4::text[])[1 + (g * 7) % 64]) || '.' || lower(($5::text[])[1 + (g * 13) % 128]) || '.' || g || '@' || lower(($8::text[])[1 + g % 10]) || (g % 50) || '.example'",
      first_name: "($4::text[])[1 + (g * 7) % 64]",
      last_name: "($5::text[])[1 + (g * 13) % 128]",
      phone: "'+1 555 ' || lpad((g % 10000000)::text, 7, '0')",
      title: "($6::text[])[1 + g % 8]",
      source: "($7::text[])[1 + g % 6]",
      owner_id: "'usr_' || lpad((g % 20)::text, 2, '0')"
    })} AS c_fields,
    ${createdFieldsSql("contact", {
      email:
        "lower(($4::text[])[1 + (g * 11 + 3) % 64]) || '.' || lower(($5::text[])[1 + (g * 17 + 5) % 128]) || '.' || g || 'b@' || lower(($8::text[])[1 + (g + 3) % 10]) || (g % 50) || '.example'",
      first_name: "($4::text[])[1 + (g * 11 + 3) % 64]",
      last_name: "($5::text[])[1 + (g * 17 + 5) % 128]",
      phone: "'+1 555 ' || lpad(((g + 1234567) % 10000000)::text, 7, '0')",
      title: "($6::text[])[1 + (g + 5) % 8]",
      source: "($7::text[])[1 + (g + 2) % 6]",
      owner_id: "'usr_' || lpad(((g + 3) % 20)::text, 2, '0')"
    })} AS c2_fields
  FROM k
), v AS MATERIALIZED (
  SELECT f.*,
    ${createdFieldsSql("deal", {
      name: "($8::text[])[1 + g % 10] || ' ' || ($13::text[])[1 + (g / 10) % 8] || ' ' || g",
      pipeline_id: "$10::text",
      stage_id: "($11::text[])[1]",
      value: "500 + (g * 37) % 100000",
      currency: "CASE WHEN g % 3 = 0 THEN 'USD' ELSE 'EUR' END",
      expected_close_date: "to_char(to_timestamp(t / 1000.0) AT TIME ZONE 'UTC' + interval '45 days', 'YYYY-MM-DD')",
      owner_id: "'usr_' || lpad((g % 20)::text, 2, '0')",
      contact_ids: "jsonb_build_array(c)",
      // The first stage is open: so is the deal.
      status: "'open'"
    })} AS d_fields,
    jsonb_build_object('id', c, 'created_at', ${iso("t")}, 'updated_at', ${iso("t")}) || ${contactViewAddsSql()} || c_fields AS c_0,
    jsonb_build_object('id', c2, 'created_at', ${iso(`t + ${6 * STEP_MS}`)}, 'updated_at', ${iso(`t + ${6 * STEP_MS}`)}) || ${contactViewAddsSql()} || c2_fields AS c2_0
  FROM f
), w AS MATERIALIZED (
  SELECT v.*, jsonb_build_object('id', d, 'stage_entered_at', ${iso(`t + ${2 * STEP_MS}`)}, 'created_at', ${iso(`t + ${2 * STEP_MS}`)}, 'updated_at', ${iso(`t + ${2 * STEP_MS}`)}) || d_fields
    || jsonb_build_object('weighted_value', round((d_fields ->> 'value')::numeric * ($14::numeric[])[1], 2)) AS d_2 FROM v
), streams AS (
  INSERT INTO ds_streams (stream_id, workspace_id, version)
  SELECT c, $9, ${VERSIONS.c} FROM w UNION ALL SELECT c2, $9, ${VERSIONS.c2} FROM w UNION ALL SELECT d, $9, ${VERSIONS.d} FROM w
)
INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
SELECT e.stream, e.version, $9, e.type, e.data,
  jsonb_build_object('actor', $12::text, 'eventId', ${id("evt", "p.t", "p.n")}, 'payload', e.payload,
    'requestId', ${id("req", "p.t", "p.n")}, 'workspaceId', $9::text),
  -- recorded a few milliseconds after the command's time, as a commit is
  to_timestamp((p.t + 4) / 1000.0)
FROM w AS v
CROSS JOIN LATERAL (VALUES
  (0, 'contact.created', v.c, 1,
    jsonb_build_object('at', ${at(0)}, 'id', v.c, 'fields', v.c_fields),
    jsonb_build_object('contact', v.c_0)),
  (1, 'contact.updated', v.c, 2,
    jsonb_build_object('at', ${at(1)}, 'changed', jsonb_build_object('title', ($6::text[])[1 + (v.g + 3) % 8])),
    jsonb_build_object('contact', v.c_0 || jsonb_build_object('title', ($6::text[])[1 + (v.g + 3) % 8], 'updated_at', ${at(1)}),
      'changed_fields', '["title"]'::jsonb)),
  (2, 'deal.created', v.d, 1,
    jsonb_build_object('at', ${at(2)}, 'id', v.d, 'fields', v.d_fields),
    jsonb_build_object('deal', v.d_2)),
  (3, 'deal.stage_changed', v.d, 2, ${stageChange(3, 1, 2, "qualified on a call").join(", ")}),
  (4, 'contact.updated', v.c, 3,
    jsonb_build_object('at', ${at(4)}, 'changed', jsonb_build_object('phone', '+1 555 ' || lpad(((v.g + 5000000) % 10000000)::text, 7, '0'))),
    jsonb_build_object('contact', v.c_0 || jsonb_build_object('title', ($6::text[])[1 + (v.g + 3) % 8],
      'phone', '+1 555 ' || lpad(((v.g + 5000000) % 10000000)::text, 7, '0'), 'updated_at', ${at(4)}, 'deal_ids', jsonb_build_array(v.d)),
      'changed_fields', '["phone"]'::jsonb)),
  (5, 'deal.stage_changed', v.d, 3, ${stageChange(5, 2, 3, "proposal sent").join(", ")}),
  (6, 'contact.created', v.c2, 1,
    jsonb_build_object('at', ${at(6)}, 'id', v.c2, 'fields', v.c2_fields),
    jsonb_build_object('contact', v.c2_0)),
  (7, 'deal.stage_changed', v.d, 4, ${stageChange(7, 3, 4, "negotiating terms").join(", ")}),
  (8, 'contact.updated', v.c2, 2,
    jsonb_build_object('at', ${at(8)}, 'changed', jsonb_build_object('owner_id', 'usr_' || lpad(((v.g + 7) % 20)::text, 2, '0'))),
    jsonb_build_object('contact', v.c2_0 || jsonb_build_object('owner_id', 'usr_' || lpad(((v.g + 7) % 20)::text, 2, '0'), 'updated_at', ${at(8)}),
      'changed_fields', '["owner_id"]'::jsonb)),
  (9, 'deal.stage_changed', v.d, 5, ${stageChange(9, 4, 3, "proposal revised").join(", ")})
) AS e(i, type, stream, version, data, payload)
CROSS JOIN LATERAL (SELECT 10 * v.g + e.i + 1 AS n, v.t + e.i * ${STEP_MS} AS t) AS p
ORDER BY v.g, e.i`

/** The stream ids of group g (0-based) of a log seeded from `baseMs`. */
export const groupStreams = (g, baseMs) => {
  const t = baseMs + 10 * g * STEP_MS
  return {
    c: `con_${b32js(t, 10)}${b32js(2 * g, 16)}`,
    c2: `con_${b32js(t + 6 * STEP_MS, 10)}${b32js(2 * g + 1, 16)}`,
    d: `deal_${b32js(t + 2 * STEP_MS, 10)}${b32js(g, 16)}`
  }
}

/**
 * Appends `events` events (rounded up to whole groups of 10) to workspace `workspaceId`'s log,
 * whose default pipeline (`pipelineId`, at least 4 stages) exists. Each batch of 20,000 is one
 * transaction, so the log's xact_ids ascend with its sequences, many events to one id, as a group
 * commit writes them. Then VACUUM ANALYZE.
 */
export const seedEvents = async ({ url, workspaceId, pipelineId, stageIds, events, log }) => {
  if (stageIds.length < 4) throw new Error("the seeded deals walk four stages; the pipeline has fewer")
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const groups = Math.ceil(events / GROUP.length)
  // The log's history ends a day before now.
  const baseMs = Date.now() - 86_400_000 - groups * 10 * STEP_MS
  // Built first: a seed that no longer matches core's fields stops here, before any row is written.
  const statement = groupBatch()
  const started = Date.now()
  let lastLogged = started
  for (let lo = 0; lo < groups; lo += BATCH_GROUPS) {
    const hi = Math.min(groups, lo + BATCH_GROUPS) - 1
    await sql.unsafe(statement, [
      lo,
      hi,
      baseMs,
      FIRST_NAMES,
      LAST_NAMES,
      TITLES,
      SOURCES,
      COMPANIES,
      workspaceId,
      pipelineId,
      stageIds,
      SEED_ACTOR,
      DEAL_WORDS,
      // The default pipeline's stages' probabilities: a deal's payload shows its weighted value.
      DEFAULT_STAGES.map((stage) => String(stage.probability ?? ""))
    ])
    if (Date.now() - lastLogged > 5000 || hi === groups - 1) {
      lastLogged = Date.now()
      const done = (hi + 1) * GROUP.length
      log(
        `  seeding events: ${done.toLocaleString("en-US")}/${(groups * GROUP.length).toLocaleString("en-US")} (${((Date.now() - started) / 1000).toFixed(0)} s)`
      )
    }
  }
  log("  seeding: VACUUM ANALYZE")
  await sql`VACUUM ANALYZE`
  await sql.end()
  return { groups, events: groups * GROUP.length, baseMs, seconds: (Date.now() - started) / 1000 }
}

/**
 * Checks the given contact and deal streams, in the log's order: each event is what core's decider
 * records for the command it stands for (replay.mjs; deals in `pipeline`, a pipelineInfo); folded
 * with core's projections (a contact's view derives deal_ids from the deals folded so far, as the
 * engine derives them from the deals stored at commit), metadata.payload equals core's
 * payloadDataFor of the event and the record's view; stream versions run 1, 2, … and ds_streams
 * holds the last. Throws on the first difference; returns how many events it checked.
 */
export const verifyStreams = async ({ url, streamIds, pipeline }) => {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const rows = await sql`SELECT stream_id, stream_version, type, data, metadata FROM ds_events
      WHERE stream_id = ANY(${streamIds}) ORDER BY sequence`
    const versions = new Map(
      (await sql`SELECT stream_id, version FROM ds_streams WHERE stream_id = ANY(${streamIds})`).map((r) => [r.stream_id, r.version])
    )
    const contacts = new Map()
    const deals = new Map()
    const seen = new Map()
    const decidedAgain = replayer(pipeline)
    // No company exists in the feed's workspace: no view shows one as live.
    const liveCompanies = new Set()
    const fail = (row, what) => {
      throw new Error(`event ${row.metadata.eventId} (${row.type} of ${row.stream_id} v${row.stream_version}): ${what}`)
    }
    for (const row of rows) {
      const event = { type: row.type, data: row.data }
      if (row.stream_version !== (seen.get(row.stream_id) ?? 0) + 1) fail(row, `version after ${seen.get(row.stream_id) ?? 0}`)
      seen.set(row.stream_id, row.stream_version)
      try {
        decidedAgain(row.stream_id, event)
      } catch (error) {
        fail(row, error.message)
      }
      let view
      if (row.type.startsWith("contact.")) {
        const projected = projectContact(contacts.get(row.stream_id) ?? null, event)
        contacts.set(row.stream_id, projected)
        view = contactView(
          row.stream_id,
          projected.data,
          [...deals].map(([dealId, deal]) => ({ id: dealId, data: deal.data })),
          liveCompanies
        )
      } else {
        const projected = projectDeal(deals.get(row.stream_id) ?? null, event)
        deals.set(row.stream_id, projected)
        // As the engine shows a deal: with its weighted value, by its stage's probability.
        const stage = pipeline.stages.find((s) => s.id === projected.data.stage_id)
        view = {
          ...showingLiveContacts(projected.data, new Set(contacts.keys())),
          weighted_value: weightedValueOf(projected.data, stage?.probability ?? null)
        }
      }
      const expected = payloadDataFor(event, view)
      if (!isDeepStrictEqual(row.metadata.payload, expected)) {
        fail(row, `stored payload ${JSON.stringify(row.metadata.payload)} differs from core's ${JSON.stringify(expected)}`)
      }
    }
    for (const streamId of streamIds) {
      if (!seen.has(streamId)) throw new Error(`stream ${streamId}: no events`)
      if (versions.get(streamId) !== seen.get(streamId))
        throw new Error(`stream ${streamId}: ds_streams says ${versions.get(streamId)}, the log holds ${seen.get(streamId)}`)
    }
    return rows.length
  } finally {
    await sql.end()
  }
}
