// Issue 34, item 4: exporting every contact of a workspace through the host on PostgreSQL,
// `GET /v1/contacts/export`, as JSON lines and as CSV, read to the end by a client that counts
// lines; rows/s, and the host's resident memory while it streams (sampled from /proc). Also the CLI
// over it (`dealstream export`, its own process). The contacts (and deals, whose ids a contact's
// row derives) are seeded by the fast path (bench/lib/seed.mjs) and checked against core first.
// An export still running after `maxSeconds` is cut off: its rate is what it read until then, the
// scenario fails (its count cannot be checked) and no further export is started.
import { spawn } from "node:child_process"
import http from "node:http"
import { fileURLToPath } from "node:url"
import postgres from "postgres"
import { cpuWindow, postmasterOf } from "../lib/cpuTime.mjs"
import { API_KEY, authHeaders, request, startHost, WORKSPACE } from "../lib/processes.mjs"
import { seededContact } from "../lib/seed.mjs"
import { seededWorkspace } from "../lib/seededWorkspace.mjs"
import { median } from "../lib/stats.mjs"
import { residentBytes } from "../soak/rss.mjs"

const SCENARIO = "contact export (PostgreSQL)"
const cliBin = fileURLToPath(new URL("../../packages/http/dist/bin.js", import.meta.url))
/** How often the host's VmRSS is read while an export streams. */
const SAMPLE_MS = 20
/** List pages of 100 read before the first export of a host (its list code compiled, its pool open). */
const WARM_PAGES = 10
const MiB = 1024 * 1024

/**
 * The host's VmRSS read every SAMPLE_MS from now on; `stop()` ends it and says the reading before
 * the first sample, the largest one (taking a last reading) and how many there were.
 */
const sampleRss = (hostPid) => {
  const rssBefore = residentBytes(hostPid)
  const samples = []
  const read = () => {
    const rss = residentBytes(hostPid)
    if (rss !== null) samples.push(rss)
  }
  const sampler = setInterval(read, SAMPLE_MS)
  return {
    stop: () => {
      clearInterval(sampler)
      read()
      return { rssBefore, rssMax: samples.length === 0 || rssBefore === null ? null : Math.max(...samples), rssSamples: samples.length }
    }
  }
}

/**
 * GET /v1/contacts/export (`accept`: JSON lines or CSV) over node:http, read to the end, counting
 * line feeds as the bytes come (Buffer.indexOf, no decoding); keeps the first two lines and the
 * last one to check. While it streams the host's VmRSS is read every SAMPLE_MS. Resolves with
 * the seconds from the request to the last byte, to the first byte, the bytes, the lines, those
 * lines, the feed cursor header and the RSS samples; after `maxSeconds`, with what came until
 * then and `finished: false` (the connection closed).
 */
const readExport = ({ base, hostPid, accept, maxSeconds }) =>
  new Promise((resolve, reject) => {
    const rss = sampleRss(hostPid)
    const started = performance.now()
    let firstByte = null
    let bytes = 0
    let lines = 0
    let head = ""
    let tail = Buffer.alloc(0)
    let done = false
    const finish = (res, finished) => {
      if (done) return
      done = true
      const seconds = (performance.now() - started) / 1000
      clearTimeout(cutOff)
      const memory = rss.stop()
      const text = tail.toString("utf8").replace(/\r?\n$/, "")
      resolve({
        finished,
        seconds,
        firstByteSeconds: ((firstByte ?? performance.now()) - started) / 1000,
        bytes,
        lines,
        firstLines: head.split(/\r?\n/).slice(0, 2),
        lastLine: text.slice(text.lastIndexOf("\n") + 1).replace(/\r$/, ""),
        cursor: res?.headers["dealstream-feed-cursor"] ?? null,
        ...memory
      })
    }
    let response = null
    const cutOff = setTimeout(() => {
      finish(response, false)
      req.destroy()
    }, maxSeconds * 1000)
    const req = http.get(new URL("/v1/contacts/export", base), { headers: { ...authHeaders, accept } }, (res) => {
      response = res
      if (res.statusCode !== 200) {
        rss.stop()
        clearTimeout(cutOff)
        const chunks = []
        res.on("data", (chunk) => chunks.push(chunk))
        res.on("end", () =>
          reject(new Error(`GET /v1/contacts/export (${accept}): ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 500)}`))
        )
        return
      }
      res.on("data", (chunk) => {
        firstByte ??= performance.now()
        bytes += chunk.length
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++
        if (head.length < 8192) head += chunk.subarray(0, 8192).toString("utf8")
        // The last line: what follows the chunk's last line feed but one, joined to what came before.
        tail = tail.length + chunk.length <= 65_536 ? Buffer.concat([tail, chunk]) : Buffer.concat([tail, chunk]).subarray(-65_536)
      })
      res.on("error", (error) => (done ? undefined : reject(error)))
      res.on("end", () => finish(res, true))
    })
    req.on("error", (error) => {
      if (done) return
      rss.stop()
      clearTimeout(cutOff)
      reject(error)
    })
  })

/**
 * `dealstream export --type contacts --output /dev/null` in a process of its own (DEALSTREAM_URL,
 * DEALSTREAM_API_KEY), timed from spawn to exit; the host's RSS sampled meanwhile. Checked: exit 0
 * and its summary line says `contacts` rows.
 */
const exportByCli = ({ base, hostPid, contacts, maxSeconds }) =>
  new Promise((resolve, reject) => {
    const sampler = sampleRss(hostPid)
    const started = performance.now()
    const child = spawn(process.execPath, [cliBin, "export", "--type", "contacts", "--output", "/dev/null"], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, DEALSTREAM_URL: base, DEALSTREAM_API_KEY: API_KEY }
    })
    const kill = () => child.kill("SIGKILL")
    process.on("exit", kill)
    let cut = false
    const cutOff = setTimeout(() => {
      cut = true
      child.kill("SIGTERM")
    }, maxSeconds * 1000)
    let stderr = ""
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-8192)
    })
    child.once("error", reject)
    child.once("close", (code, signal) => {
      const seconds = (performance.now() - started) / 1000
      clearTimeout(cutOff)
      process.off("exit", kill)
      const rss = sampler.stop()
      if (cut) {
        // Its rows so far: its last progress line (every 5 s when stderr is no terminal).
        const progress = [...stderr.matchAll(/exporting (\d+) rows/g)].at(-1)
        return resolve({ finished: false, seconds, lines: progress === undefined ? 0 : Number(progress[1]), ...rss })
      }
      if (code !== 0) return reject(new Error(`dealstream export exited ${code ?? signal}: ${stderr.slice(-1000)}`))
      const summary = /exported (\d+) rows; change feed cursor: (\S+)/.exec(stderr)
      if (summary === null || Number(summary[1]) !== contacts)
        return reject(new Error(`dealstream export of ${contacts} contacts: ${stderr.slice(-500)}`))
      resolve({ finished: true, seconds, lines: contacts, ...rss })
    })
  })

export const contactExport = async ({ pg, settings, runs, log, quick }) => {
  const { contacts, deals, maxSeconds } = settings
  const { url, seeded, sampled } = await seededWorkspace({ pg, database: "bench_export", contacts, deals, log })
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const [{ n: stored }] = await sql`SELECT count(*)::int AS n FROM ds_contacts WHERE workspace_id = ${WORKSPACE} AND deleted_at IS NULL`
  if (stored !== contacts) throw new Error(`seeded ${contacts} contacts, ds_contacts holds ${stored} live ones`)
  const postmasterPid = await postmasterOf(sql)
  log(
    `  seeded ${contacts.toLocaleString("en-US")} contacts and ${deals.toLocaleString("en-US")} deals in ${seeded.seconds.toFixed(0)} s; ${sampled} sampled records match core`
  )
  const firstId = seededContact(1, seeded.baseMs).id
  const lastId = seededContact(contacts, seeded.baseMs).id

  /** Every row there, the first and the last the seed's first and last, as JSON lines or CSV. */
  const check = (what, result, csv) => {
    const rows = csv ? result.lines - 1 : result.lines
    const fail = (message) => {
      throw new Error(`${what}: ${message}`)
    }
    if (rows !== contacts) fail(`${rows} rows read, ${contacts} seeded`)
    if (result.cursor === null) fail("no Dealstream-Feed-Cursor header")
    if (csv) {
      if (!result.firstLines[0].startsWith("id,")) fail(`header row ${result.firstLines[0].slice(0, 200)}`)
      if (!result.firstLines[1].startsWith(`${firstId},`)) fail(`first row ${result.firstLines[1].slice(0, 200)}, not ${firstId}`)
      if (!result.lastLine.startsWith(`${lastId},`)) fail(`last row ${result.lastLine.slice(0, 200)}, not ${lastId}`)
    } else {
      const first = JSON.parse(result.firstLines[0])
      const last = JSON.parse(result.lastLine)
      if (first.id !== firstId || !Array.isArray(first.deal_ids)) fail(`first line ${result.firstLines[0].slice(0, 300)}, not ${firstId}`)
      if (last.id !== lastId) fail(`last line ${result.lastLine.slice(0, 300)}, not ${lastId}`)
    }
  }

  const results = { jsonl: [], csv: [], cli: [] }
  const failures = []
  /** An export cut off at maxSeconds: said once, and nothing more is exported. */
  const cutOff = (what, result) => {
    const message =
      `${what} did not finish within ${maxSeconds} s: ${result.lines.toLocaleString("en-US")} of ${contacts.toLocaleString("en-US")} rows read ` +
      `(${Math.round(result.lines / result.seconds).toLocaleString("en-US")}/s); its count could not be checked, and no further export was started`
    failures.push(message)
    log(`  ${message}`)
  }
  try {
    for (let run = 0; run < runs && failures.length === 0; run++) {
      // A fresh host each run: its first export after start is the one measured, memory and all.
      const host = await startHost({ databaseUrl: url })
      try {
        for (let page = 0, cursor = null; page < WARM_PAGES; page++) {
          const answer = (await request(host.url, "GET", `/v1/contacts?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`)).json()
          cursor = answer.next_cursor
          if (cursor === null) break
        }
        // The export path itself once, on one contact (a filter on its email).
        const one = await request(
          host.url,
          "GET",
          `/v1/contacts/export?filter=${encodeURIComponent(JSON.stringify({ email: seededContact(1, seeded.baseMs).email }))}`
        )
        if (one.bytes.toString("utf8").trim().split("\n").length !== 1)
          throw new Error(`the warm-up export of one contact: ${one.bytes.toString().slice(0, 300)}`)
        const rssStart = residentBytes(host.pid)
        for (const [name, accept] of [
          ["jsonl", "application/x-ndjson"],
          ["csv", "text/csv"]
        ]) {
          if (failures.length > 0) break
          const cpu = cpuWindow(host.pid, postmasterPid)
          const result = await readExport({ base: host.url, hostPid: host.pid, accept, maxSeconds })
          result.cpu = cpu()
          result.rssStart = rssStart
          results[name].push(result)
          log(`  run ${run + 1}/${runs} ${describe(name, result)}`)
          if (result.finished) check(`export as ${name}, run ${run + 1}`, result, name === "csv")
          else cutOff(`the export as ${name === "csv" ? "CSV" : "JSON lines"} (run ${run + 1})`, result)
        }
        if (failures.length > 0) break
        const cpu = cpuWindow(host.pid, postmasterPid)
        const result = await exportByCli({ base: host.url, hostPid: host.pid, contacts, maxSeconds })
        result.cpu = cpu()
        results.cli.push(result)
        log(`  run ${run + 1}/${runs} ${describe("cli", result)}`)
        if (!result.finished) cutOff(`dealstream export (run ${run + 1})`, result)
      } finally {
        await host.stop()
      }
    }
  } finally {
    await sql.end()
  }

  const rate = (name) => results[name].map((r) => r.lines / r.seconds)
  const growth = (name) => results[name].map((r) => (r.rssMax - r.rssBefore) / MiB)
  /** The median over runs of `value`, formatted; "–" for an export that never ran. */
  const medianText = (name, value, format) => (results[name].length === 0 ? "–" : format(median(results[name].map(value))))
  const mb = (n) => `${(n / MiB).toFixed(0)} MB`
  const size = (n) => n.toLocaleString("en-US")
  const perMillion = (name, part) => {
    const values = results[name].map((r) => (r.cpu[part] === null ? null : r.cpu[part] / r.lines)).filter((v) => v !== null)
    return values.length === 0 ? "?" : (median(values) * 1e6).toFixed(1)
  }
  const cpuText = (name) =>
    results[name].length === 0
      ? "not run"
      : `host ${perMillion(name, "server")} s, PostgreSQL ${perMillion(name, "pg")} s, bench client ${perMillion(name, "bench")} s` +
        (name === "cli" ? `, CLI ${perMillion(name, "children")} s` : "")
  const scale = `${size(contacts)} contacts`
  const quickText = quick ? `; here ${scale}, not 1,000,000` : ""
  const whole = (name) => results[name].every((r) => r.finished)
  const row = (name, fields) => (results[name].length === 0 ? [] : [{ scenario: SCENARIO, system: "dealstream host", ...fields }])
  return {
    rows: [
      ...row("jsonl", {
        measure: `GET /v1/contacts/export, JSON lines, ${scale}, ${whole("jsonl") ? "read to the end" : `cut off after ${maxSeconds} s`}`,
        unit: "rows/s",
        runs: rate("jsonl"),
        target: { text: `≥ 50,000 rows/s at 1M contacts (issue 34)${quickText}`, on: "value", atLeast: 50_000 }
      }),
      // Over an export cut off early the growth says little of a whole one: shown, not judged.
      ...row("jsonl", {
        measure: `host RSS growth during the JSON lines export (its first export after start)${whole("jsonl") ? "" : ", over the rows read before the cut-off"}`,
        unit: "MB",
        runs: growth("jsonl"),
        ...(whole("jsonl") ? { target: { text: `< 100 MB at 1M contacts (issue 34)${quickText}`, on: "value", atMost: 100 } } : {})
      }),
      ...row("csv", {
        measure: `GET /v1/contacts/export, CSV, ${scale}, ${whole("csv") ? "read to the end" : `cut off after ${maxSeconds} s`}`,
        unit: "rows/s",
        runs: rate("csv")
      }),
      ...row("csv", { measure: "host RSS growth during the CSV export (after the JSON lines one)", unit: "MB", runs: growth("csv") }),
      ...row("cli", {
        measure: `dealstream export --type contacts --output /dev/null, ${scale}`,
        system: "dealstream export (CLI)",
        unit: "rows/s",
        runs: rate("cli")
      })
    ],
    notes: [
      `The data: ${scale} and ${size(deals)} deals (each naming one contact, so a contact's row derives its deal_ids)${quick ? " (**quick mode: the target names 1,000,000 contacts**)" : ""}, ` +
        `one workspace, seeded in ${seeded.seconds.toFixed(0)} s by \`INSERT … SELECT generate_series\` (bench/lib/seed.mjs, as the queries scenario seeds: ` +
        `the engine's shapes, then VACUUM ANALYZE); before measuring, ${sampled} random seeded records' events and documents were checked against core.`,
      `Each run starts a fresh host (own process, \`--storage postgres\`) on the seeded database, reads ${WARM_PAGES} list pages of 100 and exports one contact ` +
        "(a filter on its email), then: `GET /v1/contacts/export` as JSON lines (`Accept: application/x-ndjson`), then as CSV (`Accept: text/csv`), each " +
        "read to the end by node:http in the bench process counting line feeds (`Buffer.indexOf`, nothing decoded but the first and last lines), " +
        "then `dealstream export --type contacts --output /dev/null` (the CLI, its own process, timed spawn to exit, its count from its summary line). " +
        `Rate = rows / (request sent → last byte received). An export still running after ${maxSeconds} s is cut off (its rate: the rows read until ` +
        "then), the scenario fails, and no further export is started.",
      `Checked, or the scenario fails: every export holds exactly ${size(contacts)} rows (JSON lines: lines; CSV: lines less the header row; the CLI: ` +
        "its own count), the first is the seed's first contact and the last its last, and the answer carries `Dealstream-Feed-Cursor`.",
      `Host RSS: VmRSS of /proc/<pid>/status every ${SAMPLE_MS} ms while the export streams; growth = the largest sample less the one just before ` +
        `the request. Medians: before the JSON lines export ${medianText("jsonl", (r) => r.rssBefore, mb)}, largest during it ` +
        `${medianText("jsonl", (r) => r.rssMax, mb)}; largest during the CSV one ${medianText("csv", (r) => r.rssMax, mb)}, during the CLI's ` +
        `${medianText("cli", (r) => r.rssMax, mb)} (growth ${medianText("cli", (r) => r.rssMax - r.rssBefore, mb)}); samples per JSON lines export ` +
        `${medianText(
          "jsonl",
          (r) => r.rssSamples,
          (n) => n.toFixed(0)
        )}.`,
      `Sizes (medians): JSON lines ${medianText("jsonl", (r) => r.bytes, mb)} (${medianText(
        "jsonl",
        (r) => r.bytes / r.lines,
        (n) => n.toFixed(0)
      )} bytes a row), ` +
        `${medianText("jsonl", (r) => r.bytes / r.seconds, mb)}/s; CSV ${medianText("csv", (r) => r.bytes, mb)}, ${medianText("csv", (r) => r.bytes / r.seconds, mb)}/s. ` +
        `First byte after ${medianText(
          "jsonl",
          (r) => r.firstByteSeconds * 1000,
          (n) => `${n.toFixed(0)} ms`
        )} (JSON lines; CSV ` +
        `${medianText(
          "csv",
          (r) => r.firstByteSeconds * 1000,
          (n) => `${n.toFixed(0)} ms`
        )}): the snapshot is taken and the first page read before the answer starts.`,
      `CPU seconds per 1,000,000 rows (median over runs; /proc, user + system): JSON lines: ${cpuText("jsonl")}; CSV: ${cpuText("csv")}; ` +
        `CLI: ${cpuText("cli")}. The machine has 2 cores: parts that add up to about twice the wall time mean the export was CPU-bound.`
    ],
    failures
  }
}

const describe = (name, r) =>
  `${name}: ${r.lines.toLocaleString("en-US")} lines${r.finished ? "" : " (cut off)"} in ${r.seconds.toFixed(1)} s (${Math.round(r.lines / r.seconds).toLocaleString("en-US")}/s` +
  `${r.bytes === undefined ? "" : `, ${(r.bytes / MiB).toFixed(0)} MB, first byte ${(r.firstByteSeconds * 1000).toFixed(0)} ms`}); ` +
  `host RSS ${(r.rssBefore / MiB).toFixed(0)} → max ${(r.rssMax / MiB).toFixed(0)} MB (+${((r.rssMax - r.rssBefore) / MiB).toFixed(0)}); ` +
  `CPU host ${r.cpu.server?.toFixed(1)} s, PostgreSQL ${r.cpu.pg?.toFixed(1)} s, bench ${r.cpu.bench.toFixed(1)} s` +
  `${name === "cli" ? `, CLI ${r.cpu.children?.toFixed(1)} s` : ""}`
