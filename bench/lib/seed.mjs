// The fast path for item 5: contacts and deals written straight into dealstream's tables with
// INSERT … SELECT over generate_series, in the shapes the engine writes (one `*.created` event, the
// stream's version row, the document with its unique key, search words and folded values), batch by
// batch with progress on stderr. The events' fields are the ones core's parsers and deciders give
// (engineShapes.mjs): the SQL names only the values it varies. `verifySample` then checks a sample
// against core: each event against its decider (replay.mjs), each document against its projection.
import { catalogOf, contactUniqueKey, projectContact, projectDeal, searchFieldsOf, searchWordsOfDocument } from "@dealstream/core"
import { isDeepStrictEqual } from "node:util"
import postgres from "postgres"
import { createdFieldsSql } from "./engineShapes.mjs"
import { replayer } from "./replay.mjs"

export const FIRST_NAMES = [
  "Ada",
  "Alan",
  "Grace",
  "Edsger",
  "Barbara",
  "Donald",
  "Margaret",
  "Ken",
  "Dennis",
  "Frances",
  "John",
  "Radia",
  "Tim",
  "Vint",
  "Bob",
  "Leslie",
  "Niklaus",
  "Tony",
  "Butler",
  "Fran",
  "Shafi",
  "Silvio",
  "Judea",
  "Yoshua",
  "Geoffrey",
  "Yann",
  "Whitfield",
  "Martin",
  "Ron",
  "Adi",
  "Leonard",
  "Robert",
  "Ivan",
  "Douglas",
  "Alonzo",
  "Kurt",
  "Claude",
  "Hedy",
  "Katherine",
  "Dorothy",
  "Mary",
  "Annie",
  "Evelyn",
  "Jean",
  "Betty",
  "Kathleen",
  "Marlyn",
  "Ruth",
  "Carol",
  "Lynn",
  "Sophie",
  "Anita",
  "Ellen",
  "Susan",
  "Jeannette",
  "Cynthia",
  "Daphne",
  "Fei",
  "Shwetak",
  "Manuel",
  "Pat",
  "Peter",
  "Andrew",
  "Michael"
]
// 16 × 8 made-up surnames (Lovelace, Turing, Hopper, …, Lampson).
export const LAST_NAMES = Array.from(
  { length: 128 },
  (_, i) =>
    ["Love", "Tur", "Hop", "Dijk", "Lis", "Knu", "Ham", "Thomp", "Rit", "Al", "Mc", "Perl", "Bern", "Cerf", "Kahn", "Lamp"][i % 16] +
    ["lace", "ing", "per", "stra", "kov", "th", "ilton", "son"][Math.floor(i / 16)]
)
export const TITLES = [
  "Sales Engineer",
  "Account Executive",
  "Chief Technology Officer",
  "VP Marketing",
  "Product Manager",
  "Founder",
  "Head of Operations",
  "Buyer"
]
export const SOURCES = ["webinar", "referral", "ads", "organic", "event", "partner"]
const DEAL_WORDS = ["Pilot", "Renewal", "Expansion", "Upgrade", "Migration", "Onboarding", "Enterprise", "Starter"]
const COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell", "Cyberdyne", "Wonka"]

const BATCH = 50_000
/** Contacts are created this far apart, deals spread over the same period. */
const CONTACT_STEP_MS = 25_000

export const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"

/**
 * The engine's id characters (Crockford base32, lower case) of `n` as one SQL expression, so that
 * it is computed inline per row. Positions above bit 60 are "0" (a bigint shifted by 64 or more is
 * not defined, and the seed's numbers are far below that).
 */
export const b32 = (n, len) =>
  Array.from({ length: len }, (_, i) => {
    const shift = 5 * (len - 1 - i)
    return shift >= 60 ? "'0'" : `substr('${ALPHABET}', (((${n}) >> ${shift}) & 31)::int + 1, 1)`
  }).join(" || ")

const helpers = [
  `CREATE FUNCTION pg_temp.iso(ms bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
     SELECT to_char(to_timestamp(ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$`,
  // core's searchWordsOf on ASCII text: maximal runs of letters and digits of the lowercased value.
  `CREATE FUNCTION pg_temp.words(t text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
     SELECT array_remove(regexp_split_to_array(lower(t), '[^a-z0-9]+'), '') $$`,
  // A Set's insertion order: first occurrences, in order.
  `CREATE FUNCTION pg_temp.dedupe(a text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
     SELECT coalesce(array_agg(w ORDER BY o), '{}') FROM (SELECT w, min(o) AS o FROM unnest(a) WITH ORDINALITY AS x(w, o) GROUP BY w) AS d $$`
]

/** Contacts lo..hi, g = the contact's number; the fields it varies, the rest core's (engineShapes.mjs). */
const contactBatch = () => `
WITH c AS MATERIALIZED (
  SELECT g, t, pg_temp.iso(t) AS at,
    'con_' || ${b32("t", 10)} || ${b32("g", 16)} AS id,
    'evt_' || ${b32("t", 10)} || ${b32("g", 16)} AS event_id,
    $3::text[] AS firsts, $4::text[] AS lasts
  FROM (SELECT g, $5::bigint + g * ${CONTACT_STEP_MS} AS t FROM generate_series($1::bigint, $2::bigint) AS g) AS s
), f AS MATERIALIZED (
  SELECT c.*, ${createdFieldsSql("contact", {
    email:
      "lower(firsts[1 + (g * 7) % 64]) || '.' || lower(lasts[1 + (g * 13) % 128]) || '.' || g || '@' || lower(($8::text[])[1 + g % 10]) || (g % 50) || '.example'",
    first_name: "firsts[1 + (g * 7) % 64]",
    last_name: "lasts[1 + (g * 13) % 128]",
    // Every 50th contact has the phone of the one before: 2% of them duplicates to find (issue 28).
    phone: "'+1 555 ' || lpad(((g - (g % 50 = 0)::int) % 10000000)::text, 7, '0')",
    title: "($6::text[])[1 + g % 8]",
    source: "($7::text[])[1 + g % 6]",
    owner_id: "'usr_' || lpad((g % 20)::text, 2, '0')"
  })} AS fields
  FROM c
), d AS MATERIALIZED (
  SELECT f.*, jsonb_build_object('id', id, 'created_at', at, 'updated_at', at) || fields AS doc FROM f
), streams AS (
  INSERT INTO ds_streams (stream_id, workspace_id, version) SELECT id, $9, 1 FROM d
), events AS (
  INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
  SELECT id, 1, $9, 'contact.created', jsonb_build_object('at', at, 'id', id, 'fields', fields),
    jsonb_build_object('actor', 'seed', 'eventId', event_id, 'requestId', NULL, 'workspaceId', $9::text), to_timestamp(t / 1000.0)
  FROM d ORDER BY g
)
INSERT INTO ds_contacts (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
SELECT $9, id, 1, NULL, doc, 'email:' || lower(doc ->> 'email'),
  pg_temp.dedupe(pg_temp.words(doc ->> 'email') || pg_temp.words(doc ->> 'first_name') || pg_temp.words(doc ->> 'last_name')
    || pg_temp.words(doc ->> 'phone') || pg_temp.words(doc ->> 'title') || ARRAY[lower(doc ->> 'email')]),
  -- folded: the strings lowercasing changes, which for these values are always these five.
  jsonb_build_object('first_name', lower(doc ->> 'first_name'), 'last_name', lower(doc ->> 'last_name'), 'title', lower(doc ->> 'title'),
    'created_at', lower(at), 'updated_at', lower(at))
FROM d`

/** Deals lo..hi, h = the deal's number; the fields it varies, the rest core's (engineShapes.mjs). */
const dealBatch = () => `
WITH c AS MATERIALIZED (
  SELECT h, t, pg_temp.iso(t) AS at,
    'deal_' || ${b32("t", 10)} || ${b32("h", 16)} AS id,
    'evt_' || ${b32("t", 10)} || ${b32("h + 1000000000", 16)} AS event_id,
    1 + (h * 7919) % $9::bigint AS contact
  FROM (SELECT h, $5::bigint + h * $10::bigint AS t FROM generate_series($1::bigint, $2::bigint) AS h) AS s
), f AS MATERIALIZED (
  SELECT c.*, ${createdFieldsSql("deal", {
    name: "($3::text[])[1 + h % 10] || ' ' || ($4::text[])[1 + (h / 10) % 8] || ' ' || h",
    pipeline_id: "$6::text",
    // The pipeline's open stages only (its first four): a deal in Won or Lost is closed then, which
    // core's decider says with a closed_at the seed would have to give.
    stage_id: "($7::text[])[1 + h % 4]",
    value: "500 + (h * 37) % 100000",
    currency: "CASE WHEN h % 3 = 0 THEN 'USD' ELSE 'EUR' END",
    expected_close_date: "to_char(to_timestamp(t / 1000.0) AT TIME ZONE 'UTC' + interval '45 days', 'YYYY-MM-DD')",
    owner_id: "'usr_' || lpad((h % 20)::text, 2, '0')",
    contact_ids: `jsonb_build_array('con_' || ${b32(`($5::bigint + contact * ${CONTACT_STEP_MS})`, 10)} || ${b32("contact", 16)})`,
    status: "'open'"
  })} AS fields
  FROM c
), d AS MATERIALIZED (
  SELECT f.*, jsonb_build_object('id', id, 'stage_entered_at', at, 'created_at', at, 'updated_at', at) || fields AS doc FROM f
), streams AS (
  INSERT INTO ds_streams (stream_id, workspace_id, version) SELECT id, $8, 1 FROM d
), events AS (
  INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
  SELECT id, 1, $8, 'deal.created', jsonb_build_object('at', at, 'id', id, 'fields', fields),
    jsonb_build_object('actor', 'seed', 'eventId', event_id, 'requestId', NULL, 'workspaceId', $8::text), to_timestamp(t / 1000.0)
  FROM d ORDER BY h
)
INSERT INTO ds_deals (workspace_id, id, version, deleted_at, data, unique_key, search_words, folded)
SELECT $8, id, 1, NULL, doc, NULL, pg_temp.words(doc ->> 'name'),
  jsonb_build_object('name', lower(doc ->> 'name'), 'currency', lower(doc ->> 'currency'), 'stage_entered_at', lower(at), 'created_at', lower(at), 'updated_at', lower(at))
FROM d`

/** The id the seed gives contact number g (1-based), so callers can look one up. */
export const seededContact = (g, baseMs) => {
  const b32 = (n, len) => {
    let out = ""
    for (let i = len - 1; i >= 0; i--) out += ALPHABET[Number((BigInt(n) >> BigInt(5 * i)) & 31n)]
    return out
  }
  const firstName = FIRST_NAMES[(g * 7) % 64]
  const lastName = LAST_NAMES[(g * 13) % 128]
  const t = baseMs + g * CONTACT_STEP_MS
  return {
    id: `con_${b32(t, 10)}${b32(g, 16)}`,
    firstName,
    lastName,
    email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}.${g}@${COMPANIES[g % 10].toLowerCase()}${g % 50}.example`,
    source: SOURCES[g % 6]
  }
}

/**
 * Seeds `contacts` contacts and `deals` deals into workspace `workspaceId` of a migrated database
 * whose workspace already has its default pipeline. Returns the time base of the ids.
 */
export const seed = async ({ url, workspaceId, pipelineId, stageIds, contacts, deals, log }) => {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const baseMs = Date.now() - 400 * 86_400_000
  const started = Date.now()
  // Built first: a seed that no longer matches core's fields stops here, before any row is written.
  const statements = { contacts: contactBatch(), deals: dealBatch() }
  for (const statement of helpers) await sql.unsafe(statement)
  const progress = (what, done, total) => {
    const seconds = (Date.now() - started) / 1000
    log(
      `  seeding ${what}: ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} (${Math.round((done / total) * 100)}%, ${seconds.toFixed(0)} s)`
    )
  }
  for (let lo = 1; lo <= contacts; lo += BATCH) {
    const hi = Math.min(contacts, lo + BATCH - 1)
    await sql.unsafe(statements.contacts, [lo, hi, FIRST_NAMES, LAST_NAMES, baseMs, TITLES, SOURCES, COMPANIES, workspaceId])
    progress("contacts", hi, contacts)
  }
  const dealStep = Math.floor((contacts * CONTACT_STEP_MS) / deals)
  for (let lo = 1; lo <= deals; lo += BATCH) {
    const hi = Math.min(deals, lo + BATCH - 1)
    await sql.unsafe(statements.deals, [lo, hi, COMPANIES, DEAL_WORDS, baseMs, pipelineId, stageIds, workspaceId, contacts, dealStep])
    progress("deals", hi, deals)
  }
  // VACUUM too: a freshly filled words table (filled by its triggers) needs its visibility map set
  // for the index-only scans that answer search, as autovacuum would have done in a running system.
  log("  seeding: VACUUM ANALYZE")
  await sql`VACUUM ANALYZE`
  await sql.end()
  return { baseMs, seconds: (Date.now() - started) / 1000 }
}

const foldedOf = (data) =>
  Object.fromEntries(
    Object.entries(data)
      .filter(([, v]) => typeof v === "string" && v.toLowerCase() !== v)
      .map(([k, v]) => [k, v.toLowerCase()])
  )

/**
 * Compares `size` seeded records of each kind with what core makes: their event with what core's
 * decider records for a create of its fields (in `pipeline`, a pipelineInfo), the document
 * (projectContact/projectDeal), search words, unique key and folded values with what core computes
 * from that event. Throws on the first difference.
 */
export const verifySample = async ({ url, workspaceId, pipeline, size }) => {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const decidedAgain = replayer(pipeline)
  const kinds = [
    {
      table: "ds_contacts",
      type: "contact.created",
      project: projectContact,
      search: searchFieldsOf(catalogOf("contact", [])),
      unique: contactUniqueKey
    },
    { table: "ds_deals", type: "deal.created", project: projectDeal, search: searchFieldsOf(catalogOf("deal", [])), unique: () => null }
  ]
  let checked = 0
  for (const kind of kinds) {
    const rows = await sql.unsafe(
      `SELECT d.id, d.data, d.unique_key, d.search_words, d.folded, e.type, e.data AS event
       FROM ${kind.table} d JOIN ds_events e ON e.stream_id = d.id AND e.stream_version = 1
       WHERE d.workspace_id = $1 AND e.metadata ->> 'actor' = 'seed' ORDER BY random() LIMIT $2`,
      [workspaceId, size]
    )
    for (const row of rows) {
      decidedAgain(row.id, { type: row.type, data: row.event })
      const projected = kind.project(null, { type: row.type, data: row.event })
      const expect = (what, actual, wanted) => {
        if (!isDeepStrictEqual(actual, wanted)) {
          throw new Error(`seeded ${row.id}: ${what} differs from core's: ${JSON.stringify(actual)} vs ${JSON.stringify(wanted)}`)
        }
      }
      expect("event type", row.type, kind.type)
      expect("document", row.data, projected.data)
      expect("search words", row.search_words, searchWordsOfDocument(projected.data, kind.search))
      expect("unique key", row.unique_key, kind.unique(projected))
      expect("folded values", row.folded, foldedOf(projected.data))
      checked++
    }
  }
  await sql.end()
  return checked
}
