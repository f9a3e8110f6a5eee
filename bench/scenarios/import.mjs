// Issue 18, item 5: importing contacts through the host's batch endpoint (100 creates per request,
// 8 clients) against the same rows POSTed one at a time, and against a bare `postgres` client
// inserting them into a plain table. Issue 34, item 4: the same rows from a CSV file through the
// CLI (`dealstream import`, its own process, against the host's API) beside the batch endpoint.
// Every import of every run starts on a fresh database.
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import postgres from "postgres"
import { DEFAULT_IMPORT_CONCURRENCY } from "../../packages/http/dist/cli/transferUsage.js"
import { cpuWindow, postmasterOf } from "../lib/cpuTime.mjs"
import { API_KEY, authHeaders, startHost, request, WORKSPACE } from "../lib/processes.mjs"
import { median, ratios } from "../lib/stats.mjs"
import { newId } from "../lib/systems/shared.mjs"

const SCENARIO = "contact import (PostgreSQL)"
const CLIENTS = 8
const BATCH = 100
/** Contacts each host creates before its import (4 batches, then 200 single POSTs), and the bare client before its own. */
const WARMUP = { batches: 4, singles: 200 }
const FIFTHS = 5
/** `dealstream import`'s --concurrency when none is given (the scenario then passes none). */
const DEFAULT_CLI_CONCURRENCY = DEFAULT_IMPORT_CONCURRENCY

const FIRST = [
  "Ada",
  "Grace",
  "Alan",
  "Edsger",
  "Barbara",
  "Donald",
  "Frances",
  "Ken",
  "Margaret",
  "John",
  "Radia",
  "Tim",
  "Hedy",
  "Dennis",
  "Sophie",
  "Linus"
]
const LAST = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Dijkstra",
  "Liskov",
  "Knuth",
  "Allen",
  "Thompson",
  "Hamilton",
  "Backus",
  "Perlman",
  "Berners-Lee",
  "Lamarr",
  "Ritchie",
  "Wilson",
  "Torvalds"
]
const DOMAINS = ["acme.example", "globex.example", "initech.example", "umbrella.example", "hooli.example", "stark.example"]
const SOURCES = ["import", "webinar", "referral", "ads", "event", "partner"]
const INDUSTRIES = ["software", "retail", "finance", "health", "manufacturing", "education"]

/** The workspace's two custom contact fields, defined on every fresh database before any contact. */
const CUSTOM_FIELDS = [
  { object: "contact", key: "industry", label: "Industry", type: "enum", options: INDUSTRIES },
  { object: "contact", key: "employees", label: "Employees", type: "number" }
]

/**
 * Row `i` of the import, as a CRM export would hand it over: distinct emails (some capitalised, as
 * people type them; the unique key is case-insensitive), a phone, a source and the two custom fields.
 * Every system imports the same rows; warm-up rows (`warmup`) live on a domain of their own.
 */
const contactRow = (i, warmup = false) => {
  const first = FIRST[i % FIRST.length]
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length]
  const local = `${first}.${last}.${i}`
  return {
    email: `${i % 7 === 0 ? local : local.toLowerCase()}@${warmup ? "warmup.example" : DOMAINS[i % DOMAINS.length]}`,
    first_name: first,
    last_name: last,
    phone: `+1 555 ${String(1000 + (i % 9000)).padStart(4, "0")} ${String(i % 100).padStart(2, "0")}`,
    source: SOURCES[i % SOURCES.length],
    industry: INDUSTRIES[(i * 7) % INDUSTRIES.length],
    employees: 5 + ((i * 37) % 5000)
  }
}

/**
 * A JSON POST over a keep-alive agent (node:http, the least a client can spend per request; the
 * bench process shares the 2 cores with the host and PostgreSQL). Resolves with status and body text.
 */
const postJson = (agent, base, path, body, headers = {}) =>
  new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body))
    const req = http.request(
      new URL(path, base),
      {
        method: "POST",
        agent,
        headers: { ...authHeaders, ...headers, "content-type": "application/json", "content-length": payload.length }
      },
      (res) => {
        const chunks = []
        res.on("data", (chunk) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("utf8") }))
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(payload)
  })

/**
 * Rows [0, total) in chunks of `chunk`, `clients` at a time, each client taking the next chunk as
 * soon as its previous one is answered. Returns the seconds from the first send to the last
 * answer and the moments at which a fifth, two fifths, … of the rows were done (the rate's steadiness).
 * The first failure stops every client and is thrown.
 */
const importConcurrently = async ({ total, chunk, clients, send }) => {
  let next = 0
  let done = 0
  let failure = null
  const fifths = []
  const started = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (failure === null && next < total) {
        const from = next
        const to = Math.min(total, from + chunk)
        next = to
        try {
          await send(from, to)
        } catch (error) {
          failure ??= error
          return
        }
        done += to - from
        while (fifths.length < FIFTHS && done >= (total * (fifths.length + 1)) / FIFTHS) fifths.push(performance.now())
      }
    })
  )
  if (failure !== null) throw failure
  const seconds = (performance.now() - started) / 1000
  const fifthRates = fifths.map((at, k) => total / FIFTHS / ((at - (k === 0 ? started : fifths[k - 1])) / 1000))
  return { seconds, rate: total / seconds, fifthRates }
}

/**
 * Creates through the host: `batch` sends rows as batches of creates, else one POST per row. Every
 * answer must be a 201. `keyed`: each batch under an Idempotency-Key of its own, as the CLI sends them.
 */
const hostSender = ({ agent, base, rows, batch, keyed = false }) => {
  const run = newId("imp")
  return batch
    ? async (from, to) => {
        const answer = await postJson(
          agent,
          base,
          "/v1/contacts/batch",
          { operations: rows.slice(from, to).map((data) => ({ op: "create", data })) },
          keyed ? { "idempotency-key": `bench-${run}-${from}` } : {}
        )
        if (answer.status !== 200)
          throw new Error(`POST /v1/contacts/batch (rows ${from}–${to - 1}): ${answer.status} ${answer.text.slice(0, 500)}`)
        const { results } = JSON.parse(answer.text)
        if (results.length !== to - from)
          throw new Error(`POST /v1/contacts/batch (rows ${from}–${to - 1}) answered ${results.length} results`)
        const bad = results.find((result, k) => result.status !== 201 || result.index !== k || result.data?.email !== rows[from + k].email)
        if (bad !== undefined)
          throw new Error(`POST /v1/contacts/batch (rows ${from}–${to - 1}): result ${JSON.stringify(bad).slice(0, 500)}`)
      }
    : async (from, to) => {
        for (let i = from; i < to; i++) {
          const answer = await postJson(agent, base, "/v1/contacts", rows[i])
          if (answer.status !== 201) throw new Error(`POST /v1/contacts (row ${i}): ${answer.status} ${answer.text.slice(0, 500)}`)
        }
      }
}

const cliBin = fileURLToPath(new URL("../../packages/http/dist/bin.js", import.meta.url))
/** The CSV file's columns: the row's fields by their names, as `dealstream import` maps a header by default. */
const COLUMNS = ["email", "first_name", "last_name", "phone", "source", "industry", "employees"]

const csvField = (value) => {
  const text = String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The rows as a spreadsheet saves them: a header row, then one line per row, CRLF line ends (RFC 4180). */
const csvOf = (rows) =>
  [COLUMNS, ...rows.map((row) => COLUMNS.map((column) => row[column]))].map((cells) => `${cells.map(csvField).join(",")}\r\n`).join("")

/**
 * `dealstream import <file> --type contacts [--concurrency n]` in a process of its own, against the
 * host at `base` (DEALSTREAM_URL, DEALSTREAM_API_KEY), timed from its spawn to its exit: node's start,
 * reading and parsing the file, its questions to the host (the OpenAPI document, the custom fields)
 * and every batch. Its progress lines (stderr is no terminal: one at each tenth) give the moment it
 * started sending (its 0% line) and the fifths. Checked: it exits 0 and its summary says every row
 * was created, none updated, unchanged or rejected.
 */
const importByCli = ({ base, file, total, concurrency }) =>
  new Promise((resolve, reject) => {
    rmSync(`${file}.dealstream-import`, { force: true })
    const started = performance.now()
    const args = [cliBin, "import", file, "--type", "contacts", ...(concurrency === null ? [] : ["--concurrency", String(concurrency)])]
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, DEALSTREAM_URL: base, DEALSTREAM_API_KEY: API_KEY }
    })
    const kill = () => child.kill("SIGKILL")
    process.on("exit", kill)
    let stderr = ""
    let pending = ""
    let sending = null
    const fifths = []
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-8192)
      pending += chunk
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const progress = /^importing .* (\d+)\/\d+ rows/.exec(pending.slice(0, nl))
        pending = pending.slice(nl + 1)
        if (progress === null) continue
        const done = Number(progress[1])
        sending ??= performance.now()
        while (fifths.length < FIFTHS && done >= (total * (fifths.length + 1)) / FIFTHS) fifths.push(performance.now())
      }
    })
    child.once("error", reject)
    child.once("close", (code, signal) => {
      process.off("exit", kill)
      const seconds = (performance.now() - started) / 1000
      if (code !== 0) return reject(new Error(`dealstream import exited ${code ?? signal}: ${stderr.slice(-1000)}`))
      const summary = /imported (\d+) rows: (\d+) created, (\d+) updated, (\d+) unchanged, (\d+) rejected/.exec(stderr)
      const expected = `${total},${total},0,0,0`
      if (summary === null || summary.slice(1).join(",") !== expected)
        return reject(new Error(`dealstream import of ${total} rows: its summary is not ${expected}: ${stderr.slice(-1000)}`))
      const fifthRates = fifths.map((at, k) => total / FIFTHS / ((at - (k === 0 ? started : fifths[k - 1])) / 1000))
      resolve({
        seconds,
        rate: total / seconds,
        fifthRates,
        startSeconds: sending === null ? null : (sending - started) / 1000,
        sendingRate: sending === null ? null : total / ((performance.now() - sending) / 1000)
      })
    })
  })

/** Live contacts of the bench workspace, and the last event's sequence (what the import appended is after it). */
const hostCounts = async (sql) => {
  const [row] =
    await sql`SELECT (SELECT count(*)::int FROM ds_contacts WHERE workspace_id = ${WORKSPACE} AND deleted_at IS NULL) AS contacts,
    (SELECT coalesce(max(sequence), 0)::text FROM ds_events) AS sequence`
  return row
}

/**
 * One import through a host on a fresh database: custom fields defined, the host warmed up (both
 * endpoints, rows of their own), a checkpoint so that no earlier run's dirty pages are written
 * during this one, then `total` rows timed. Checked: every answer 201, and the workspace holds
 * exactly `total` more live contacts, whose contact.created events are counted with the
 * transactions that stored them.
 */
const importThroughHost = async ({ pg, database, rows, total, how, cli }) => {
  const batch = how === "batch" || how === "keyed"
  const what = { batch: "batch", keyed: "keyed batch", single: "single-request", cli: "CLI" }[how]
  const url = await pg.createDatabase(database)
  const host = await startHost({ databaseUrl: url })
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const warmAgent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })
  try {
    for (const field of CUSTOM_FIELDS) await request(host.url, "POST", "/v1/custom-fields", field)
    const warmRows = Array.from({ length: WARMUP.batches * BATCH + WARMUP.singles }, (_, i) => contactRow(i, true))
    await importConcurrently({
      total: WARMUP.batches * BATCH,
      chunk: BATCH,
      clients: CLIENTS,
      // Keyed as the timed batches will be (the CLI keys each of its batches), so that path is compiled too.
      send: hostSender({ agent: warmAgent, base: host.url, rows: warmRows, batch: true, keyed: how === "keyed" || how === "cli" })
    })
    const singles = hostSender({ agent: warmAgent, base: host.url, rows: warmRows.slice(WARMUP.batches * BATCH), batch: false })
    await importConcurrently({ total: WARMUP.singles, chunk: 1, clients: CLIENTS, send: singles })
    // Fresh sockets for the timed import: none the host could close as idle while a client reuses it.
    warmAgent.destroy()
    await sql`CHECKPOINT`
    const postmasterPid = await postmasterOf(sql)
    const before = await hostCounts(sql)
    const cpu = cpuWindow(host.pid, postmasterPid)
    const timed =
      how === "cli"
        ? await importByCli({ base: host.url, file: cli.file, total, concurrency: cli.concurrency })
        : await importConcurrently({
            total,
            chunk: batch ? BATCH : 1,
            clients: CLIENTS,
            send: hostSender({ agent, base: host.url, rows, batch, keyed: how === "keyed" })
          })
    const window = cpu()
    // The CLI is the only child the window reaps.
    const spent = how === "cli" ? { ...window, cli: window.children } : window
    const after = await hostCounts(sql)
    if (after.contacts - before.contacts !== total) {
      throw new Error(`${what} import of ${total} contacts: the workspace holds ${after.contacts - before.contacts} more live contacts`)
    }
    const [events] = await sql`SELECT count(*)::int AS created, count(DISTINCT xact_id)::int AS transactions
      FROM ds_events WHERE sequence > ${before.sequence}::bigint AND type = 'contact.created'`
    if (events.created !== total) throw new Error(`${what} import of ${total} contacts appended ${events.created} contact.created events`)
    return { ...timed, transactions: events.transactions, cpu: spent }
  } finally {
    warmAgent.destroy()
    agent.destroy()
    await sql.end()
    await host.stop()
  }
}

/**
 * The bare peer on a fresh database: a plain contacts table (workspace, id, the document as jsonb,
 * a unique index on the lowercased email), the same rows in chunks of 100 by 8 connections, each
 * chunk one `INSERT … SELECT` from the JSON array of its documents (id and timestamps made by the
 * client, as the host makes its own), in a transaction of its own. Warmed up and checkpointed as
 * the hosts are; checked: every chunk inserted all its rows and the table holds `total` more.
 */
const importBare = async ({ pg, database, rows, total }) => {
  const url = await pg.createDatabase(database)
  const sql = postgres(url, { max: CLIENTS, onnotice: () => {} })
  try {
    await sql`CREATE TABLE contacts (workspace_id text NOT NULL, id text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (workspace_id, id))`
    await sql`CREATE UNIQUE INDEX contacts_email ON contacts (workspace_id, lower(data ->> 'email'))`
    const sender = (source) => async (from, to) => {
      const at = new Date().toISOString()
      const documents = source.slice(from, to).map((row) => ({ id: newId("con"), ...row, created_at: at, updated_at: at }))
      // The array as text, cast by the server (a parameter typed jsonb would be stringified again).
      const inserted = await sql`INSERT INTO contacts (workspace_id, id, data)
        SELECT ${WORKSPACE}, d ->> 'id', d FROM jsonb_array_elements(${JSON.stringify(documents)}::text::jsonb) AS d RETURNING id`
      if (inserted.length !== documents.length) throw new Error(`bare INSERT of rows ${from}–${to - 1} inserted ${inserted.length}`)
    }
    // Warm-up: as many rows as a host's warm-up, which also opens the 8 connections and prepares the statement on each.
    const warmRows = Array.from({ length: WARMUP.batches * BATCH + WARMUP.singles }, (_, i) => contactRow(i, true))
    await importConcurrently({ total: warmRows.length, chunk: BATCH, clients: CLIENTS, send: sender(warmRows) })
    await sql`CHECKPOINT`
    const postmasterPid = await postmasterOf(sql)
    const count = async () => (await sql`SELECT count(*)::int AS n FROM contacts WHERE workspace_id = ${WORKSPACE}`)[0].n
    const before = await count()
    const cpu = cpuWindow(null, postmasterPid)
    const timed = await importConcurrently({ total, chunk: BATCH, clients: CLIENTS, send: sender(rows) })
    const spent = cpu()
    const after = await count()
    if (after - before !== total) throw new Error(`bare import of ${total} rows: the table holds ${after - before} more`)
    const [{ transactions }] =
      await sql`SELECT count(DISTINCT xmin::text)::int AS transactions FROM contacts WHERE data ->> 'email' NOT LIKE '%@warmup.example'`
    return { ...timed, transactions, cpu: spent }
  } finally {
    await sql.end()
  }
}

const thousands = (n) => Math.round(n).toLocaleString("en-US")
const seconds1 = (s) => (s === null ? "?" : s.toFixed(1))
const seconds2 = (s) => (s === null ? "?" : s.toFixed(2))

/** One import's log line: time, rate, rate by fifth, transactions, CPU. */
const describe = (name, total, result, serverName) =>
  `${name}: ${thousands(total)} in ${result.seconds.toFixed(1)} s (${thousands(result.rate)}/s; by fifth ${result.fifthRates.map(thousands).join(", ")}), ` +
  `${result.startSeconds === undefined ? "" : `sending from ${seconds2(result.startSeconds)} s on at ${thousands(result.sendingRate ?? NaN)}/s, `}` +
  `${thousands(result.transactions)} transactions; CPU ${serverName === null ? "" : `${serverName} ${seconds1(result.cpu.server)} s, `}` +
  `PostgreSQL ${seconds1(result.cpu.pg)} s, bench ${seconds1(result.cpu.bench)} s` +
  `${result.cpu.cli === undefined ? "" : `, CLI ${seconds1(result.cpu.cli)} s`}`

export const contactImport = async ({ pg, settings, runs, log, quick }) => {
  const { contacts, singleContacts } = settings
  // The --concurrency values the CLI runs with, each an import of its own (lib/modes.mjs).
  const CLI_CONCURRENCY = settings.cliConcurrency ?? [DEFAULT_CLI_CONCURRENCY]
  const rows = Array.from({ length: contacts }, (_, i) => contactRow(i))
  // The CLI's file: the same rows, written once; its journal and report would go beside it.
  const dir = mkdtempSync(join(tmpdir(), "ds-bench-import-"))
  const file = join(dir, "contacts.csv")
  writeFileSync(file, csvOf(rows))
  const fileBytes = readFileSync(file).length
  const cliName = (concurrency) => `cli${concurrency}`
  const imports = {
    batch: { total: contacts, run: () => importThroughHost({ pg, database: "bench_import_batch", rows, total: contacts, how: "batch" }) },
    single: {
      total: singleContacts,
      run: () => importThroughHost({ pg, database: "bench_import_single", rows, total: singleContacts, how: "single" })
    },
    bare: { total: contacts, run: () => importBare({ pg, database: "bench_import_bare", rows, total: contacts }) },
    keyed: { total: contacts, run: () => importThroughHost({ pg, database: "bench_import_keyed", rows, total: contacts, how: "keyed" }) },
    ...Object.fromEntries(
      CLI_CONCURRENCY.map((concurrency) => [
        cliName(concurrency),
        {
          total: contacts,
          run: () =>
            importThroughHost({
              pg,
              database: `bench_import_${cliName(concurrency)}`,
              rows,
              total: contacts,
              how: "cli",
              cli: { file, concurrency: concurrency === DEFAULT_CLI_CONCURRENCY ? null : concurrency }
            })
        }
      ])
    )
  }
  const names = Object.keys(imports)
  const results = Object.fromEntries(names.map((name) => [name, []]))
  try {
    for (let run = 0; run < runs; run++) {
      // Which import goes first turns from run to run: none always follows the same one.
      const order = names.map((_, k) => names[(k + run) % names.length])
      for (const name of order) {
        const result = await imports[name].run()
        results[name].push(result)
        log(`  run ${run + 1}/${runs} ${describe(name, imports[name].total, result, name === "bare" ? null : "host")}`)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }

  const rate = (name) => results[name].map((r) => r.rate)
  const medianOf = (name, value) => median(results[name].map(value))
  const perThousand = (name, part) => {
    const values = results[name].map((r) => r.cpu[part]).filter((v) => v !== null)
    return values.length === 0 ? null : (median(values) / imports[name].total) * 1000
  }
  const cpuText = (name, serverName) => {
    const parts = [
      serverName === null ? null : ["host", perThousand(name, "server")],
      ["PostgreSQL", perThousand(name, "pg")],
      ["bench client", perThousand(name, "bench")]
    ].filter((part) => part !== null && part[1] !== null)
    return parts.length === 0 ? "not measured" : parts.map(([who, s]) => `${who} ${s.toFixed(2)} s`).join(", ")
  }
  const fifthsText = (name) => Array.from({ length: FIFTHS }, (_, k) => thousands(medianOf(name, (r) => r.fifthRates[k]))).join(", ")
  const size = (n) => n.toLocaleString("en-US")
  const batchMeasure = `import of ${size(contacts)} contacts, ${BATCH} creates per request, ${CLIENTS} clients`
  const quickNote = quick ? ` (**quick mode: the target names 100,000**)` : ""
  return {
    rows: [
      { scenario: SCENARIO, measure: batchMeasure, system: "dealstream, POST /v1/contacts/batch", unit: "contacts/s", runs: rate("batch") },
      {
        scenario: SCENARIO,
        measure: `import of ${size(singleContacts)} contacts, one per request, ${CLIENTS} clients`,
        system: "dealstream, POST /v1/contacts",
        unit: "contacts/s",
        runs: rate("single")
      },
      {
        scenario: SCENARIO,
        measure: "import rate, batch ÷ single requests",
        system: "dealstream batch ÷ dealstream single",
        unit: "×",
        runs: ratios(rate("batch"), rate("single")),
        target: {
          text: `batch ≥ 5× single requests (issue 18)${quick ? `; here ${size(contacts)} contacts, not 100,000` : ""}`,
          on: "value",
          atLeast: 5
        }
      },
      {
        scenario: SCENARIO,
        measure: `import of ${size(contacts)} contacts, INSERT … SELECT of ${BATCH} rows, ${CLIENTS} connections`,
        system: "postgres (bare client)",
        unit: "rows/s",
        runs: rate("bare"),
        ratio: ratios(rate("batch"), rate("bare"))
      },
      {
        scenario: SCENARIO,
        measure: `import of ${size(contacts)} contacts, ${BATCH} creates per request, ${CLIENTS} clients, an Idempotency-Key per request (as the CLI sends)`,
        system: "dealstream, POST /v1/contacts/batch + Idempotency-Key",
        unit: "contacts/s",
        runs: rate("keyed")
      },
      {
        scenario: SCENARIO,
        measure: "import rate, batch with Idempotency-Keys ÷ batch without",
        system: "dealstream keyed batch ÷ dealstream batch",
        unit: "×",
        runs: ratios(rate("keyed"), rate("batch"))
      },
      ...CLI_CONCURRENCY.flatMap((concurrency) => {
        const name = cliName(concurrency)
        const flag =
          concurrency === DEFAULT_CLI_CONCURRENCY ? `default --concurrency (${DEFAULT_CLI_CONCURRENCY})` : `--concurrency ${concurrency}`
        return [
          {
            scenario: SCENARIO,
            measure: `import of ${size(contacts)} contacts from CSV, dealstream import, ${flag}`,
            system: "dealstream import (CLI)",
            unit: "contacts/s",
            runs: rate(name)
          },
          {
            scenario: SCENARIO,
            measure: `import rate from CSV, CLI (${flag}) ÷ batch endpoint`,
            system: "dealstream CLI ÷ dealstream batch",
            unit: "×",
            runs: ratios(rate(name), rate("batch")),
            ...(concurrency === DEFAULT_CLI_CONCURRENCY
              ? {
                  target: {
                    text: `CLI ≥ 0.9× the batch endpoint (issue 34)${quick ? `; here ${size(contacts)} contacts, not 100,000` : ""}`,
                    on: "value",
                    atLeast: 0.9
                  }
                }
              : {})
          },
          {
            scenario: SCENARIO,
            measure: `import rate from CSV, CLI (${flag}) ÷ batch endpoint with Idempotency-Keys (the CLI's own share)`,
            system: "dealstream CLI ÷ dealstream keyed batch",
            unit: "×",
            runs: ratios(rate(name), rate("keyed"))
          }
        ]
      })
    ],
    notes: [
      `The rows: ${size(contacts)} contacts${quickNote}, the same for every system: distinct emails on 6 domains (one in 7 with capitals in its ` +
        "local part), first and last name, phone, source, and two custom fields the workspace defines before anything else " +
        "(`industry`, an enum of 6, and `employees`, a number); about 180 bytes of JSON each.",
      "Every import of every run gets a fresh database of the embedded server (and the hosts a fresh host process on it), created just before " +
        "and dropped by the next run's: no import finds an earlier one's rows in its tables, indexes or event log, nor a host warmed or slowed " +
        "by another import. Each first creates 600 contacts of its own, untimed (a host: 4 batches of 100, then 200 single POSTs, so both " +
        "endpoints are compiled; the bare client: 6 chunks of 100, which also opens its connections and prepares its statement), then runs " +
        "`CHECKPOINT` so that no earlier writes are flushed during the timed import (the keyed batch and the CLI: their 4 warm-up batches under " +
        `Idempotency-Keys, as their timed ones). Which of the ${names.length} imports runs first turns from run to run.`,
      `Through the host (own process, \`--storage postgres\`, rate limits out of the way): ${CLIENTS} clients in the bench process, node:http over a ` +
        `keep-alive agent of ${CLIENTS} sockets, each sending its next request once its previous one is answered. Batch: \`POST /v1/contacts/batch\` ` +
        `with ${BATCH} \`{"op": "create", "data": row}\` operations, \`atomic\` absent (its creates run concurrently and group commit gathers their ` +
        `commits). Single: \`POST /v1/contacts\` with one row. Rate = contacts / (first request sent → last answer received).`,
      "Checked, or the scenario fails: every batch answers 200 with one result per operation, each `status` 201 with the row's email; every " +
        "single POST answers 201; afterwards the workspace holds exactly that many more live contacts (`SELECT count(*) FROM ds_contacts`) and " +
        "the log that many more contact.created events.",
      `Single requests import ${singleContacts === contacts ? "the same rows" : `the first ${size(singleContacts)} of the rows, not all ${size(contacts)}`}` +
        `${singleContacts === contacts ? "" : " (rates are compared, not totals: at a few hundred a second, all of them one by one would take minutes per run)"}. ` +
        `Rate by fifth of each import (median over runs, contacts/s), to show it steady: batch ${fifthsText("batch")}; ` +
        `single ${fifthsText("single")}; bare ${fifthsText("bare")}.`,
      `Bare peer: a \`postgres\` client (${CLIENTS} connections) on a fresh database, a table \`contacts (workspace_id text, id text, data jsonb, ` +
        "PRIMARY KEY (workspace_id, id))` with `UNIQUE (workspace_id, lower(data ->> 'email'))`; per chunk of 100 rows one " +
        "`INSERT INTO contacts SELECT $1, d ->> 'id', d FROM jsonb_array_elements($2::text::jsonb) AS d RETURNING id` (the documents made by " +
        "the client: the row, an id and the timestamps), one transaction per chunk. Chosen over one `INSERT … SELECT` of all the rows because " +
        "it is the same import: the same chunks, the same number of clients, a commit (and a WAL flush) per chunk at most, and a round trip " +
        "per chunk; a single statement would be a bulk load in one transaction, which the host's endpoint cannot be. It validates nothing, " +
        "keeps no event log, search words or list indexes. dealstream/this on its row is batch ÷ bare, per run.",
      `Transactions per import (median): batch ${thousands(medianOf("batch", (r) => r.transactions))} for ${size(contacts)} contacts ` +
        `(distinct xact_id of its contact.created events), single ${thousands(medianOf("single", (r) => r.transactions))} for ${size(singleContacts)}, ` +
        `bare ${thousands(medianOf("bare", (r) => r.transactions))} (distinct xmin of its rows).`,
      `CPU seconds per 1,000 contacts (median over runs; /proc, user + system; PostgreSQL's processes that ended during an import are not counted): ` +
        `batch: ${cpuText("batch", "host")}; single: ${cpuText("single", "host")}; bare: ${cpuText("bare", null)}. The machine has 2 cores: ` +
        "an import whose parts add up to about twice its wall time was CPU-bound.",
      "The ratio row `batch ÷ single` holds per-run ratios of the two rates of the same run (issue 18's target: at least 5).",
      `CLI (issue 34): the same rows written once to a CSV file (${(fileBytes / 1024 / 1024).toFixed(1)} MB; a header row of the fields' names ` +
        `${COLUMNS.map((c) => `\`${c}\``).join(", ")}, CRLF line ends), then per run \`node packages/http/dist/bin.js import <file> --type contacts\` ` +
        `${CLI_CONCURRENCY.map((c) => (c === DEFAULT_CLI_CONCURRENCY ? `(default --concurrency, ${DEFAULT_CLI_CONCURRENCY})` : `\`--concurrency ${c}\``)).join(", ")} in a process ` +
        "of its own, DEALSTREAM_URL and DEALSTREAM_API_KEY set, onto a fresh database and host as the batch import's (custom fields defined " +
        "first, so the CLI maps `industry` and `employees` to them). It sends the rows as creates (no `--match`), in batches of 100, each " +
        "under an Idempotency-Key of its own, and notes each answered batch in its journal. Rate = rows / (spawn → exit): node's start, " +
        "reading, hashing and parsing the file, its two questions to the host (the OpenAPI document, the custom fields) and every batch. " +
        `Median seconds from spawn to its first progress line (ready to send): ${CLI_CONCURRENCY.map((c) => seconds2(medianOf(cliName(c), (r) => r.startSeconds))).join(", ")}; ` +
        `rate from then on: ${CLI_CONCURRENCY.map((c) => `${thousands(medianOf(cliName(c), (r) => r.sendingRate))}/s`).join(", ")}; ` +
        `by fifth (from spawn): ${CLI_CONCURRENCY.map((c) => fifthsText(cliName(c))).join("; ")}. Checked: it exits 0, its summary says ` +
        "every row created and none updated, unchanged or rejected, and the workspace holds exactly that many more live contacts and the log " +
        "that many more contact.created events.",
      `Keyed batch: the batch import again, each request under an Idempotency-Key of its own (\`bench-<run>-<first row>\`), from the same ` +
        "node:http clients: what the keys cost the endpoint, apart from the CLI's own work (the rows `CLI ÷ keyed batch`). Transactions " +
        `(median): keyed ${thousands(medianOf("keyed", (r) => r.transactions))}, ${CLI_CONCURRENCY.map((c) => `CLI ${c}: ${thousands(medianOf(cliName(c), (r) => r.transactions))}`).join(", ")}. ` +
        `CPU seconds per 1,000 contacts: keyed: ${cpuText("keyed", "host")}; ${CLI_CONCURRENCY.map((c) => `CLI ${c}: ${cpuText(cliName(c), "host")}, the CLI process ${perThousand(cliName(c), "cli")?.toFixed(2) ?? "?"} s`).join("; ")}.`
    ],
    failures: []
  }
}
