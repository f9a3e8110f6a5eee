// Issue 17: the change feed (GET /v1/events) of the host on PostgreSQL. Read rate: one consumer
// walks a long log from the start, page after page, beside a bare `postgres` client walking the
// same rows with a keyset SELECT. Latency: a consumer long-polls at the head while contacts are
// created one at a time; POST sent to event received.
import postgres from "postgres"
import { pipelineInfo } from "../lib/engineShapes.mjs"
import { authHeaders, request, startHost, WORKSPACE } from "../lib/processes.mjs"
import { runTag } from "../lib/loop.mjs"
import { GROUP, groupStreams, SEED_ACTOR, seedEvents, verifyStreams } from "../lib/seedEvents.mjs"
import { quantile } from "../lib/stats.mjs"
import { contactFields } from "../lib/systems/shared.mjs"

const SCENARIO = "change feed (PostgreSQL)"
const PAGE = 1000
const WAIT_LIMIT_MS = 30_000
/** After an event arrives, how long the writer waits before its next POST: the consumer's next long-poll is parked by then. */
const GAP_MS = 10

/**
 * A JSON value's shape: an object's keys in order with their shapes, an array's element shape (of
 * its first element; null when empty), else the value's type.
 */
const shapeOf = (value) =>
  value === null
    ? { kind: "null" }
    : Array.isArray(value)
      ? { kind: "array", item: value.length === 0 ? null : shapeOf(value[0]) }
      : typeof value === "object"
        ? { kind: "object", entries: Object.entries(value).map(([key, item]) => [key, shapeOf(item)]) }
        : { kind: typeof value }

/** Two events of one type must have the same shape; an empty array matches any array (a contact with no deals yet). */
const sameShape = (a, b) =>
  a.kind === b.kind &&
  (a.kind === "array"
    ? a.item === null || b.item === null || sameShape(a.item, b.item)
    : a.kind === "object"
      ? a.entries.length === b.entries.length &&
        a.entries.every(([key, shape], i) => key === b.entries[i][0] && sameShape(shape, b.entries[i][1]))
      : true)

/** A GET of the feed; an aborted long-poll rejects with AbortError. */
const getFeed = async (base, query, signal) => {
  const response = await fetch(`${base}/v1/events?${query}`, { headers: authHeaders, signal })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET /v1/events?${query}: ${response.status} ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

/** The whole walk through the host, from the start, following next_cursor until a short page. */
const walkHost = async (base) => {
  let after = null
  let count = 0
  let pages = 0
  const started = performance.now()
  for (;;) {
    const page = await getFeed(base, `limit=${PAGE}${after === null ? "" : `&after=${after}`}`)
    count += page.data.length
    pages++
    after = page.next_cursor
    if (page.data.length < PAGE) break
  }
  return { count, pages, seconds: (performance.now() - started) / 1000, cursor: after }
}

/**
 * The same walk by a bare client: the keyset SELECT of the rows the feed reads (the host's own
 * columns, recorded_at formatted by the server as the host has it), jsonb parsed by the driver.
 */
const walkBare = async (sql) => {
  let transaction = "0"
  let sequence = "0"
  let count = 0
  const started = performance.now()
  for (;;) {
    const rows = await sql`SELECT xact_id::text AS xact, sequence, stream_id, stream_version, type, data, metadata,
        to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at
      FROM ds_events WHERE workspace_id = ${WORKSPACE} AND (xact_id, sequence) > (${transaction}::xid8, ${sequence}::bigint)
      ORDER BY xact_id, sequence LIMIT ${PAGE}`
    count += rows.length
    if (rows.length < PAGE) break
    transaction = rows.at(-1).xact
    sequence = rows.at(-1).sequence
  }
  return { count, seconds: (performance.now() - started) / 1000 }
}

/**
 * A consumer long-polling at the head (`wait=30`): when each contact.created arrived (the
 * contact's id → performance.now() once the page is parsed).
 */
const startConsumer = (base, cursor) => {
  const arrivals = new Map()
  const controller = new AbortController()
  let waiter = null
  let failure = null
  const loop = (async () => {
    let after = cursor
    while (!controller.signal.aborted) {
      let page
      try {
        page = await getFeed(base, `after=${after}&limit=${PAGE}&wait=30`, controller.signal)
      } catch (error) {
        if (controller.signal.aborted) return
        failure = error
        waiter?.reject(error)
        return
      }
      const at = performance.now()
      for (const event of page.data) if (event.type === "contact.created") arrivals.set(event.data.contact.id, at)
      after = page.next_cursor
      if (waiter !== null && arrivals.has(waiter.id)) waiter.resolve()
    }
  })()
  return {
    arrivals,
    /** Resolves once the contact's event has arrived. */
    waitFor: (id) =>
      new Promise((resolve, reject) => {
        if (failure !== null) return reject(failure)
        if (arrivals.has(id)) return resolve()
        const timer = setTimeout(
          () => reject(new Error(`contact ${id}'s event did not reach the consumer within ${WAIT_LIMIT_MS / 1000} s`)),
          WAIT_LIMIT_MS
        )
        waiter = {
          id,
          resolve: () => {
            clearTimeout(timer)
            waiter = null
            resolve()
          },
          reject: (error) => {
            clearTimeout(timer)
            waiter = null
            reject(error)
          }
        }
      }),
    stop: async () => {
      controller.abort()
      await loop
    }
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

export const feed = async ({ pg, settings, runs, log, quick }) => {
  const { events, latencyContacts } = settings
  const url = await pg.createDatabase("bench_feed")
  const host = await startHost({ databaseUrl: url })
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    // Reality first: one event of each type the seed writes, made by the engine through the host,
    // at the log's start (the walk reads them first, then the seeded events).
    const pipeline = (await request(host.url, "GET", "/v1/pipelines")).json().data[0]
    const stageIds = pipeline.stages.map((s) => s.id)
    const contact = (await request(host.url, "POST", "/v1/contacts", { ...contactFields(runTag, "reference"), owner_id: "usr_01" })).json()
    await request(host.url, "PATCH", `/v1/contacts/${contact.id}`, { title: "Account Executive" })
    const deal = (
      await request(host.url, "POST", "/v1/deals", {
        name: "Acme Pilot reference",
        pipeline_id: pipeline.id,
        stage_id: stageIds[0],
        value: 5000,
        currency: "EUR",
        expected_close_date: "2026-12-31",
        owner_id: "usr_01",
        contact_ids: [contact.id]
      })
    ).json()
    await request(host.url, "PUT", `/v1/deals/${deal.id}/stage`, { stage_id: stageIds[1], reason: "qualified on a call" })
    const references = (await getFeed(host.url, `limit=${PAGE}`)).data
    const referenceOf = new Map(references.map((event) => [event.type, event]))
    const missingTypes = [...new Set(GROUP)].filter((type) => !referenceOf.has(type))
    if (missingTypes.length > 0)
      throw new Error(`the host's feed shows no ${missingTypes.join(", ")} among ${references.map((e) => e.type).join(", ")}`)
    // The checker first agrees with the engine on the engine's own events.
    const deciding = pipelineInfo(pipeline)
    await verifyStreams({ url, streamIds: [contact.id, deal.id], pipeline: deciding })

    const seeded = await seedEvents({ url, workspaceId: WORKSPACE, pipelineId: pipeline.id, stageIds, events, log })

    // The seeding against reality. (1) Stored rows: the data and metadata keys of each seeded type
    // are the engine's for that type. (2) Through the host: the seeded events of the first page have
    // the shape of the engine's event of their type, key by key, nested. (3) Every event of sampled
    // groups is what core's decider records for it, and their streams folded with core's
    // projections give every stored payload (lib/seedEvents.mjs).
    // (core's FEED_EVENT_TYPES are `contact.*` and `deal.*` ones.)
    const keys = { engine: new Map(), seeded: new Map() }
    for (const row of await sql`SELECT DISTINCT ON (type, seeded) type, metadata->>'actor' = ${SEED_ACTOR} AS seeded, data, metadata
        FROM ds_events WHERE workspace_id = ${WORKSPACE} AND (type LIKE 'contact.%' OR type LIKE 'deal.%') ORDER BY type, seeded, sequence`) {
      keys[row.seeded ? "seeded" : "engine"].set(row.type, {
        data: Object.keys(row.data).sort().join(","),
        metadata: Object.keys(row.metadata).sort().join(","),
        payload: Object.keys(row.metadata.payload ?? {})
          .sort()
          .join(",")
      })
    }
    if (keys.seeded.size !== new Set(GROUP).size)
      throw new Error(`the log holds seeded events of ${[...keys.seeded.keys()].join(", ") || "no type"}`)
    for (const [type, seededKeys] of keys.seeded) {
      if (JSON.stringify(seededKeys) !== JSON.stringify(keys.engine.get(type))) {
        throw new Error(
          `seeded ${type} rows have keys ${JSON.stringify(seededKeys)}, the engine's ${JSON.stringify(keys.engine.get(type))}`
        )
      }
    }
    const firstPage = (await getFeed(host.url, `limit=${PAGE}`)).data
    const seededShown = firstPage.slice(references.length)
    if (seededShown.length === 0) throw new Error("the feed shows no seeded event after the engine's")
    for (const event of seededShown) {
      const reference = referenceOf.get(event.type)
      if (reference === undefined) throw new Error(`the feed shows a seeded ${event.type}, a type the seed does not write`)
      if (!sameShape(shapeOf(event), shapeOf(reference))) {
        throw new Error(
          `seeded ${event.type} ${event.id} reads through the feed as ${JSON.stringify(event)}, ` +
            `unlike the engine's ${JSON.stringify(reference)}`
        )
      }
    }
    const sample = Array.from({ length: 50 }, (_, i) => Math.floor(((i * 0.61803) % 1) * seeded.groups))
    const folded = await verifyStreams({
      url,
      streamIds: sample.flatMap((g) => Object.values(groupStreams(g, seeded.baseMs))),
      pipeline: deciding
    })
    log(
      `  seeded ${seeded.events.toLocaleString("en-US")} events in ${seeded.seconds.toFixed(0)} s; seeded rows' keys, ` +
        `${seededShown.length} seeded events read through the feed and ${folded} events of ${sample.length} folded groups match the engine's`
    )

    // Every walk must read exactly what is in the log: nothing skipped, nothing twice.
    const expected = async () => {
      const [row] = await sql`SELECT count(*)::int AS all, count(*) FILTER (WHERE type LIKE 'contact.%' OR type LIKE 'deal.%')::int AS fed
        FROM ds_events WHERE workspace_id = ${WORKSPACE}`
      return row
    }
    const figures = { hostRate: [], bareRate: [], hostSeconds: [], bareSeconds: [], walked: [], p50: [], p99: [], postP50: [] }
    let n = 0
    const post = async () => {
      const sent = performance.now()
      const created = (await request(host.url, "POST", "/v1/contacts", contactFields(runTag, n++))).json()
      return { id: created.id, sent, answered: performance.now() }
    }
    let head = null
    for (let run = 0; run < runs; run++) {
      // Read rate: the whole log from the start, the host and the bare client one after the other,
      // which first alternating from run to run (the log, about 1.3 GB at 1M events, stays in the
      // page cache of a machine with a few GB, but the second reader could still profit from the first).
      const counts = await expected()
      const walks = {}
      for (const who of run % 2 === 0 ? ["host", "bare"] : ["bare", "host"])
        walks[who] = who === "host" ? await walkHost(host.url) : await walkBare(sql)
      if (walks.host.count !== counts.fed)
        throw new Error(`the host's walk read ${walks.host.count} events, the log holds ${counts.fed} of the feed's types`)
      if (walks.bare.count !== counts.all) throw new Error(`the bare walk read ${walks.bare.count} rows, the workspace has ${counts.all}`)
      head = walks.host.cursor
      figures.hostRate.push(walks.host.count / walks.host.seconds)
      figures.bareRate.push(walks.bare.count / walks.bare.seconds)
      figures.hostSeconds.push(walks.host.seconds)
      figures.bareSeconds.push(walks.bare.seconds)
      figures.walked.push(walks.host.count)

      // Latency: a consumer at the head (the walk's last cursor) long-polls; contacts are POSTed
      // one at a time, each after the previous one's event arrived and a short gap.
      const consumer = startConsumer(host.url, head)
      try {
        if (run === 0) {
          // Warm-up: the host's create path and the consumer's wake-up.
          for (let i = 0; i < 10; i++) {
            await consumer.waitFor((await post()).id)
            await sleep(GAP_MS)
          }
        }
        const sent = []
        for (let i = 0; i < latencyContacts; i++) {
          const one = await post()
          await consumer.waitFor(one.id)
          sent.push(one)
          await sleep(GAP_MS)
        }
        const latency = sent.map((s) => consumer.arrivals.get(s.id) - s.sent)
        figures.p50.push(quantile(latency, 0.5))
        figures.p99.push(quantile(latency, 0.99))
        figures.postP50.push(
          quantile(
            sent.map((s) => s.answered - s.sent),
            0.5
          )
        )
      } finally {
        await consumer.stop()
      }
      log(
        `  run ${run + 1}/${runs}: walk of ${walks.host.count.toLocaleString("en-US")} events through the host ${walks.host.seconds.toFixed(1)} s ` +
          `(${Math.round(figures.hostRate[run])}/s), bare SELECT ${walks.bare.seconds.toFixed(1)} s (${Math.round(figures.bareRate[run])}/s); ` +
          `POST to event p50 ${figures.p50[run].toFixed(1)} ms, p99 ${figures.p99[run].toFixed(1)} ms, POST round trip p50 ${figures.postP50[run].toFixed(1)} ms`
      )
    }

    const size = `${seeded.events.toLocaleString("en-US")}-event log`
    const rateTarget = { text: "≥ 20,000 events/s at 1M events (issue 17)", on: "value", atLeast: 20_000 }
    return {
      rows: [
        {
          scenario: SCENARIO,
          measure: `read rate, whole walk of a ${size}, limit=${PAGE} (host over HTTP)`,
          system: "dealstream",
          unit: "events/s",
          runs: figures.hostRate,
          target: quick ? { ...rateTarget, text: `${rateTarget.text} (here ${seeded.events.toLocaleString("en-US")})` } : rateTarget
        },
        {
          scenario: SCENARIO,
          measure: `read rate, whole walk of a ${size}, keyset SELECT of ${PAGE}`,
          system: "postgres (bare client)",
          unit: "events/s",
          runs: figures.bareRate,
          ratio: figures.hostRate.map((rate, i) => rate / figures.bareRate[i])
        },
        {
          scenario: SCENARIO,
          measure: "POST contact to its event at a long-polling consumer, p50",
          system: "dealstream",
          unit: "ms",
          runs: figures.p50,
          target: { text: "p50 < 20 ms (issue 17)", on: "value", atMost: 20 }
        },
        {
          scenario: SCENARIO,
          measure: "POST contact to its event at a long-polling consumer, p99",
          system: "dealstream",
          unit: "ms",
          runs: figures.p99
        },
        {
          scenario: SCENARIO,
          measure: "POST contact round trip (201 received), p50",
          system: "dealstream",
          unit: "ms",
          runs: figures.postP50
        }
      ],
      notes: [
        `Log: ${seeded.events.toLocaleString("en-US")} events${quick ? " (**quick mode: smaller than the target's 1M**)" : ""} of workspace \`${WORKSPACE}\`, ` +
          `seeded in ${seeded.seconds.toFixed(0)} s by \`INSERT … SELECT generate_series\` (bench/lib/seedEvents.mjs), 20,000 events per transaction (so per xact_id), ` +
          "after 4 events the engine wrote through the host (one contact.created, contact.updated, deal.created, deal.stage_changed). Per 10 seeded events: " +
          "2 contact.created, 3 contact.updated, 1 deal.created, 4 deal.stage_changed, in the engine's shape: the event data (a created record's fields " +
          "those core's create parser and decider give, bench/lib/engineShapes.mjs: the seed's SQL names the values it varies, every other field takes " +
          "core's value for a body that leaves it out), metadata " +
          "{actor, eventId, payload, requestId, workspaceId} with the payload the outbox stores, stream versions and ds_streams rows (no documents: the feed reads the log only); then VACUUM ANALYZE.",
        "Checked before measuring: the seeded rows' data, metadata and payload keys per type equal the engine-written events'; the seeded events of the feed's " +
          "first page have the shape (keys in order, nested, value types) of the engine's event of their type; every event of 50 seeded groups (150 streams) " +
          "is what core's decider records for the command it stands for (a create of its fields, a patch of its changes, a move to its stage), and the streams folded with core's " +
          "projectContact/projectDeal/contactView give every stored payload by core's payloadDataFor (the checker first passes the engine's own events). " +
          "Every walk must read exactly the log's feed events (host) or all its rows (bare), or the scenario fails.",
        `Read rate: per run, one walk from the start (no cursor) through the host (own process, PostgreSQL storage), GET /v1/events?limit=${PAGE} ` +
          "following next_cursor until a short page, one request at a time over keep-alive (Node's fetch), each page's JSON parsed; events / the walk's time. " +
          `Beside it the same walk by a bare \`postgres\` client (max 1 connection): \`SELECT … WHERE workspace_id = $1 AND (xact_id, sequence) > ($2, $3) ` +
          `ORDER BY xact_id, sequence LIMIT ${PAGE}\` returning the host's columns (no snapshot-xmin bound nor type filter, no JSON made or sent); ` +
          "dealstream/this is host ÷ bare per run. The two walk one after the other, which first alternating by run. " +
          `Walks took ${figures.hostSeconds.map((s) => s.toFixed(1)).join(", ")} s (host) and ${figures.bareSeconds.map((s) => s.toFixed(1)).join(", ")} s (bare) ` +
          `over ${figures.walked.map((c) => c.toLocaleString("en-US")).join(", ")} events (the log grows by each run's contacts).`,
        `Latency: a consumer long-polls at the head (\`wait=30\`, from the cursor the last walk ended on); ${latencyContacts} contacts per run are POSTed ` +
          `through the host one at a time, each after the previous one's event reached the consumer and a ${GAP_MS} ms gap (10 untimed before the first run); ` +
          "per contact, the time from sending the POST to the consumer having parsed the page holding its contact.created (matched by data.contact.id), " +
          "both taken with performance.now() in the bench process. It includes the commit; the last row is the POST's own round trip for comparison."
      ],
      failures: []
    }
  } finally {
    await sql.end()
    await host.stop()
  }
}
