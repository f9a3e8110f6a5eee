// Item 4: requests per second and p99 latency over HTTP, with autocannon in a process of its own,
// for the dealstream host (its own process, PostgreSQL storage), a bare node:http server answering
// the same bytes, the framework floor (a minimal Effect HttpApi server answering the same bytes for
// GET one contact), and fastify routes doing one INSERT (POST) and one SELECT (GET).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import postgres from "postgres"
import { autocannonRuns } from "../lib/autocannon.mjs"
import { forEachConcurrently, runTag } from "../lib/loop.mjs"
import { authHeaders, request, spawnServer, startHost } from "../lib/processes.mjs"
import { versionOf } from "../lib/machine.mjs"
import { ratios } from "../lib/stats.mjs"
import { contactFields } from "../lib/systems/shared.mjs"

const SCENARIO = "HTTP"
const FLOOR = "framework floor (Effect HttpApi)"
const SOURCES = ["webinar", "referral", "ads", "organic", "event", "partner"]
export const LIST_PATH = `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ source: { $in: ["webinar", "referral"] } }))}&sort=-created_at&limit=25`
export const POST_BODY = contactFields("post", 0)

/**
 * The dealstream host with contacts to read: one to GET, `listContacts` for the list page. On a
 * fresh PostgreSQL database, or on memory storage when `database` is undefined.
 */
export const prepareHost = async ({ pg, database, listContacts, nodeArgs = [] }) => {
  const databaseUrl = database === undefined ? undefined : await pg.createDatabase(database)
  const host = await startHost({ databaseUrl, nodeArgs })
  const { json } = await request(host.url, "POST", "/v1/contacts", contactFields(runTag, "get"))
  const contactId = json().id
  await forEachConcurrently(listContacts, 8, (i) =>
    request(host.url, "POST", "/v1/contacts", { ...contactFields(runTag, i), source: SOURCES[i % SOURCES.length] })
  )
  return { host, contactId, getPath: `/v1/contacts/${contactId}` }
}

/** Stores the contact the host answered as the fastify peer's document row for GET one contact. */
const storeFastifyDocument = async (databaseUrl, answer) => {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    const contact = answer.json()
    // The answered text as it is: a parameter typed json would be passed through JSON.stringify (a string in a string).
    await sql`INSERT INTO contact_documents (id, data) VALUES (${contact.id}, ${answer.bytes.toString("utf8")}::text::json)`
  } finally {
    await sql.end()
  }
}

/**
 * Fills the fastify peer's list table with every contact the host holds, each as the host lists it
 * (the same JSON text), and the query fingerprint the host's list cursors carry.
 */
const storeFastifyList = async (databaseUrl, host, listed) => {
  const contacts = []
  for (let cursor = null; ; ) {
    const { json } = await request(host.url, "GET", `/v1/contacts?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`)
    const page = json()
    contacts.push(...page.data)
    if (page.next_cursor === null) break
    cursor = page.next_cursor
  }
  const [fingerprint] = JSON.parse(Buffer.from(listed.json().next_cursor, "base64url").toString("utf8"))
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    for (const contact of contacts) {
      await sql`INSERT INTO contact_list (id, source, created_at, data)
        VALUES (${contact.id}, ${contact.source}, ${contact.created_at}, ${JSON.stringify(contact)}::text::json)`
    }
    await sql`INSERT INTO list_cursor (fingerprint) VALUES (${fingerprint})`
    await sql`ANALYZE contact_list`
  } finally {
    await sql.end()
  }
}

/**
 * A peer must answer GET one contact as the host did (status, body bytes, content type), or its
 * figure compares nothing. `mediaTypeOnly`: fastify always adds `; charset=utf-8` to a JSON type.
 */
const expectSameAnswer = async (name, server, getPath, got, { mediaTypeOnly = false } = {}) => {
  const answer = await request(server.url, "GET", getPath)
  const typeOf = (response) => {
    const type = response.headers.get("content-type") ?? ""
    return mediaTypeOnly ? type.split(";")[0].trim() : type
  }
  const differences = [
    answer.status === got.status ? null : `status ${answer.status}, not ${got.status}`,
    typeOf(answer) === typeOf(got) ? null : `content type ${typeOf(answer)}, not ${typeOf(got)}`,
    answer.bytes.equals(got.bytes) ? null : `body ${answer.bytes.toString("utf8")}, not ${got.bytes.toString("utf8")}`
  ].filter((difference) => difference !== null)
  if (differences.length > 0) throw new Error(`${name} answers GET ${getPath} unlike the host: ${differences.join("; ")}`)
}

/**
 * The peers next to the host: the bare server and the framework floor answering the bytes the host
 * answered, the fastify peer's copy of the contact, then the rounds of autocannon runs. `servers`
 * collects what is started here, for the caller to stop.
 */
const measure = async ({ host, getPath, onMemory, fastify, dir, servers, settings, runs, log }) => {
  const { seconds, warmupSeconds, connections, listContacts } = settings
  const got = await request(host.url, "GET", getPath)
  const listed = await request(host.url, "GET", LIST_PATH)
  // The list peer's table holds the contacts the host held when it answered `listed`: filled before
  // the POST below adds one.
  await storeFastifyList(fastify.databaseUrl, host, listed)
  await expectSameAnswer("fastify + keyset SELECT", fastify, LIST_PATH, listed, { mediaTypeOnly: true })
  const posted = await request(host.url, "POST", "/v1/contacts", { ...POST_BODY, email: `bare.${runTag}@bench.example` })
  const routesFile = join(dir, "routes.json")
  const route = (answer) => ({
    status: answer.status,
    contentType: answer.headers.get("content-type"),
    body: answer.bytes.toString("base64")
  })
  writeFileSync(
    routesFile,
    JSON.stringify({
      [`GET ${getPath}`]: route(got),
      [`GET ${LIST_PATH}`]: route(listed),
      "POST /v1/contacts": route(posted)
    })
  )
  const kept = (server) => {
    servers.push(server)
    return server
  }
  const [bare, floor] = await Promise.all([
    spawnServer({
      name: "bare node:http",
      script: fileURLToPath(new URL("../lib/bareServer.mjs", import.meta.url)),
      args: [routesFile]
    }).then(kept),
    spawnServer({
      name: "framework floor",
      script: fileURLToPath(new URL("../lib/floorServer.mjs", import.meta.url)),
      args: [routesFile]
    }).then(kept)
  ])
  await storeFastifyDocument(fastify.databaseUrl, got)
  await expectSameAnswer("the framework floor", floor, getPath, got)
  await expectSameAnswer("fastify + 1 SELECT", fastify, getPath, got, { mediaTypeOnly: true })

  const endpoints = [
    {
      measure: "GET one contact",
      method: "GET",
      path: getPath,
      paths: { memory: onMemory.getPath },
      servers: { dealstream: host, bare, memory: onMemory.host, floor, fastifySelect: fastify }
    },
    {
      measure: `list page (${listContacts.toLocaleString("en-US")} contacts)`,
      method: "GET",
      path: LIST_PATH,
      servers: { dealstream: host, bare, fastifyList: fastify }
    },
    {
      measure: "POST contact",
      method: "POST",
      path: "/v1/contacts",
      body: POST_BODY,
      uniqueEmail: true,
      servers: { dealstream: host, bare, fastifyInsert: fastify, memory: onMemory.host }
    }
  ]
  const failures = []
  const pairs = endpoints.flatMap((endpoint, i) =>
    Object.entries(endpoint.servers).map(([name, server]) => ({ i, endpoint, name, server }))
  )
  const shoot = async (duration) => {
    const results = await autocannonRuns(
      pairs.map(({ endpoint, name, server }) => ({
        url: server.url,
        method: endpoint.method,
        path: endpoint.paths?.[name] ?? endpoint.path,
        headers: { ...authHeaders, ...(endpoint.body === undefined ? {} : { "content-type": "application/json" }) },
        body: endpoint.body,
        uniqueEmail: endpoint.uniqueEmail === true,
        connections,
        duration
      }))
    )
    results.forEach((result, k) => {
      const bad = result.non2xx + result.errors + result.timeouts
      if (bad > 0)
        failures.push(
          `${pairs[k].endpoint.measure} on ${pairs[k].name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`
        )
    })
    return results
  }

  // None in smoke runs: autocannon's clock ticks in whole seconds, so each figure's warm-up costs one.
  if (warmupSeconds > 0) await shoot(warmupSeconds)
  const measured = endpoints.map(() => ({}))
  for (let run = 0; run < runs; run++) {
    const results = await shoot(seconds)
    results.forEach((result, k) => {
      const byName = measured[pairs[k].i]
      byName[pairs[k].name] ??= { rps: [], p99: [] }
      const slot = byName[pairs[k].name]
      slot.rps.push(result.rps)
      slot.p99.push(result.p99)
    })
    for (const [i, endpoint] of endpoints.entries()) {
      log(
        `  run ${run + 1}/${runs} ${endpoint.measure}: ${Object.entries(measured[i])
          .map(([name, m]) => `${name} ${Math.round(m.rps[run])} req/s p99 ${m.p99[run]} ms`)
          .join(", ")}`
      )
    }
  }
  return { endpoints, measured, failures, got, listed }
}

export const http = async ({ pg, settings, runs, log }) => {
  const { seconds, warmupSeconds, connections, listContacts } = settings
  // Started side by side (start-up is most of a quick run's set-up): the host on PostgreSQL, the same
  // host on memory storage (what HTTP and the engine cost without a database), and fastify (its
  // database's URL kept, for the document its GET reads).
  const started = await Promise.allSettled([
    prepareHost({ pg, database: "bench_http_dealstream", listContacts }),
    prepareHost({ pg, listContacts }),
    pg.createDatabase("bench_http_fastify").then(async (url) => ({
      ...(await spawnServer({ name: "fastify", script: fileURLToPath(new URL("../lib/fastifyServer.mjs", import.meta.url)), args: [url] })),
      databaseUrl: url
    }))
  ])
  const servers = started.filter((s) => s.status === "fulfilled").map((s) => s.value.host ?? s.value)
  const dir = mkdtempSync(join(tmpdir(), "ds-bench-bare-"))
  let outcome
  try {
    const failed = started.find((s) => s.status === "rejected")
    if (failed !== undefined) throw failed.reason
    const [{ host, getPath }, onMemory, fastify] = started.map((s) => s.value)
    outcome = { getPath, ...(await measure({ host, getPath, onMemory, fastify, dir, servers, settings, runs, log })) }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
  const { endpoints, measured, failures, got, listed, getPath } = outcome

  const rows = []
  for (const [i, endpoint] of endpoints.entries()) {
    const m = measured[i]
    const peers = Object.keys(m).filter((name) => name !== "dealstream")
    const label = {
      bare: "bare node:http",
      fastifyInsert: "fastify + 1 INSERT",
      fastifySelect: "fastify + 1 SELECT",
      fastifyList: "fastify + keyset SELECT",
      memory: "dealstream on memory",
      floor: FLOOR
    }
    const rpsTarget = {
      "GET one contact:bare": { text: "dealstream ≥ 0.5× bare", on: "ratio", atLeast: 0.5 },
      "GET one contact:fastifySelect": { text: "dealstream ≥ 1.0× fastify + 1 SELECT (issue 14)", on: "ratio", atLeast: 1.0 },
      "POST contact:fastifyInsert": { text: "dealstream ≥ 1.0× fastify + 1 INSERT (issue 14)", on: "ratio", atLeast: 1.0 },
      [`${endpoints[1].measure}:fastifyList`]: { text: "dealstream ≥ 1.0× fastify + keyset SELECT (issue 14)", on: "ratio", atLeast: 1.0 }
    }
    // Issue 14: each p99 at most twice its fastify peer's.
    const p99Target = { text: "dealstream p99 ≤ 2× the fastify peer's (issue 14)", on: "ratio", atMost: 2 }
    const p99Targeted = new Set(["fastifySelect", "fastifyInsert", "fastifyList"])
    rows.push({
      scenario: SCENARIO,
      measure: `${endpoint.measure}, throughput`,
      system: "dealstream",
      unit: "req/s",
      runs: m.dealstream.rps
    })
    for (const peer of peers) {
      const target = rpsTarget[`${endpoint.measure}:${peer}`]
      rows.push({
        scenario: SCENARIO,
        measure: `${endpoint.measure}, throughput`,
        system: label[peer],
        unit: "req/s",
        runs: m[peer].rps,
        ratio: ratios(m.dealstream.rps, m[peer].rps),
        ...(target ? { target } : {})
      })
    }
    // Ratios that do not have the PostgreSQL host on top: memory host ÷ floor (issue 14's 0.5×, raised
    // to 0.6× by issue 32) and floor ÷ bare.
    if (m.floor !== undefined) {
      rows.push({
        scenario: SCENARIO,
        measure: `${endpoint.measure}, throughput ratio`,
        system: `dealstream on memory ÷ ${FLOOR}`,
        unit: "×",
        runs: ratios(m.memory.rps, m.floor.rps),
        target: { text: "dealstream on memory ≥ 0.6× the framework floor (issue 32)", on: "value", atLeast: 0.6 }
      })
      rows.push({
        scenario: SCENARIO,
        measure: `${endpoint.measure}, throughput ratio`,
        system: `${FLOOR} ÷ bare node:http`,
        unit: "×",
        runs: ratios(m.floor.rps, m.bare.rps)
      })
    }
    rows.push({ scenario: SCENARIO, measure: `${endpoint.measure}, p99 latency`, system: "dealstream", unit: "ms", runs: m.dealstream.p99 })
    for (const peer of peers) {
      rows.push({
        scenario: SCENARIO,
        measure: `${endpoint.measure}, p99 latency`,
        system: label[peer],
        unit: "ms",
        runs: m[peer].p99,
        ratio: ratios(m.dealstream.p99, m[peer].p99),
        ...(p99Targeted.has(peer) ? { target: p99Target } : {})
      })
    }
  }
  return {
    rows,
    notes: [
      `autocannon ${connections} connections, ${seconds} s per figure and run (after ${warmupSeconds} s of warm-up per endpoint and server), in a \`node\` process of its own ` +
        "(bench/lib/autocannonDriver.mjs, one process per round running the figures one after another); throughput counts 2xx answers only; p99 is autocannon's. Every server runs in its own process on the same 2 cores as " +
        "autocannon and PostgreSQL.",
      "dealstream: `node packages/http/dist/bin.js serve --storage postgres` on a fresh database of the embedded server, API key auth on, rate limit raised out of the way " +
        "(1e9/s); its JSON request log (one line per request) goes to /dev/null.",
      `GET one contact: \`GET ${getPath.replace(/con_\w+/, "con_…")}\` (${got.bytes.length} bytes). List page: \`GET ${decodeURIComponent(LIST_PATH)}\` ` +
        `(${listed.bytes.length} bytes) over ${listContacts.toLocaleString("en-US")} contacts of 6 sources. POST contact: \`POST /v1/contacts\` with a fresh email per request ` +
        `(${JSON.stringify(POST_BODY).length}-byte body), answered 201 with the contact.`,
      "Bare node:http (bench/lib/bareServer.mjs): `http.createServer` answering the bytes dealstream answered for the same method and path (same status and content type), " +
        "reading POST bodies to the end first. Ratios in the p99 rows are dealstream's p99 / the peer's (above 1: dealstream is slower).",
      "dealstream on memory: the same host with `--storage memory` and the same data, for what HTTP and the engine cost without a database (GET and POST only: " +
        "memory storage answers a list by scanning; no target; its ratio is the PostgreSQL host's / the memory host's).",
      "fastify + 1 INSERT (bench/lib/fastifyServer.mjs): fastify 5 `POST /v1/contacts` parsing the JSON body and running one " +
        "`INSERT INTO contacts (id, email, data) … RETURNING` through a `postgres` client (pool 10) on a database of its own, answering 201 with the row as JSON.",
      "fastify + 1 SELECT (the same fastify process): `GET /v1/contacts/:id` running one `SELECT data FROM contact_documents WHERE id = $1` " +
        "(primary key) and answering the row's document as JSON (fastify's own serialization; `application/json; charset=utf-8`). Its row is the contact the host answered, stored before the runs " +
        "in a `json` column (which keeps the key order, so the bytes are the host's). It derives nothing: the host's GET also reads the custom-field " +
        "catalog and the deals naming the contact (deal_ids).",
      "fastify + keyset SELECT (the same fastify process): the list page's `GET /v1/contacts?filter=…&sort=-created_at&limit=25` running one " +
        "`SELECT id, created_at, data::text FROM contact_list WHERE source = ANY($1) ORDER BY created_at DESC, id DESC LIMIT 26` (index on source, created_at, id) " +
        "over a table of the contacts the host lists (each the host's JSON text, in a `json` column), joining the rows' text into the page and making " +
        "next_cursor as the host does (core's encodeCursor; the query fingerprint taken from the host's own cursor). It checks nothing and derives nothing " +
        "(the host parses and checks the filter, reads the settings version and each contact's deal_ids in the same statement).",
      `Framework floor (bench/lib/floorServer.mjs): a minimal Effect HttpApi server (effect ${versionOf("effect")}, @effect/platform-node ` +
        `${versionOf("@effect/platform-node")}) built as packages/http builds the host (HttpApiBuilder.layer, HttpRouter.serve with the logger off, ` +
        "NodeHttpServer): one endpoint `GET /v1/contacts/:id` (path parameter decoded by its schema), no auth, no middleware, no storage; the handler " +
        "looks the id up in a Map of the contacts the host answered and renders it with `HttpServerResponse.jsonUnsafe`, as the host's handler does. " +
        "What dealstream costs above it is ours; what it costs above bare node:http is the framework's. The rows `… ÷ …` are per-run ratios of two " +
        "figures of the same round (dealstream on memory ÷ floor is issue 14's target; the floor's bytes are the PostgreSQL host's, the memory host " +
        "answers the same fields in its own key order).",
      "Before the runs the harness checks that the floor and fastify + 1 SELECT answer GET one contact, and fastify + keyset SELECT the list page, " +
        "with the host's status and body bytes, and the floor with its content type (fastify with its media type: it always adds a charset). " +
        "p99 targets (issue 14): dealstream's p99 at most twice the fastify peer's for GET, POST and the list page."
    ],
    failures
  }
}
