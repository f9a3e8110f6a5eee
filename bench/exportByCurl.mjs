// The contact export read by `curl … | wc -l` (no node client beside it), for iterating on the
// export outside the bench's export scenario: on a database that stays between runs, any server.
//   node bench/exportByCurl.mjs seed <server-url> <database> [contacts]   (deals: a fifth as many)
//   node bench/exportByCurl.mjs run <database-url> [runs] [host node flags…]
// `seed` drops and makes the database, and seeds it as the export scenario does (seededWorkspace).
// `run` starts a fresh host per run, reads 10 list pages, then the whole export as JSON lines, and
// prints one JSON line a run: rows/s, the host's RSS growth (sampled from /proc every 20 ms), CPU
// seconds of the host and of the server's processes (all of its databases), and the load average.
import { spawn } from "node:child_process"
import { loadavg } from "node:os"
import postgres from "postgres"
import { cpuOf, parentOf, treeCpu, treeCpuSince } from "./lib/cpuTime.mjs"
import { API_KEY, request, startHost } from "./lib/processes.mjs"
import { seededWorkspace } from "./lib/seededWorkspace.mjs"
import { residentBytes } from "./soak/rss.mjs"

const [command, url, ...rest] = process.argv.slice(2)
const MiB = 1024 * 1024

const seedDatabase = async (serverUrl, database, contacts) => {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const pg = {
    createDatabase: async (name) => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.unsafe(`CREATE DATABASE ${name}`)
      return `${serverUrl.replace(/\/[^/]*$/, "")}/${name}`
    }
  }
  const seeded = await seededWorkspace({ pg, database, contacts, deals: contacts / 5, log: (line) => console.error(line) })
  console.log(JSON.stringify({ url: seeded.url, seconds: seeded.seeded.seconds, sampled: seeded.sampled }))
  await admin.end()
}

/** curl's body through `wc -l`: the line count. */
const curlLines = (base) =>
  new Promise((resolve, reject) => {
    const curl = `curl -sS -H 'authorization: Bearer ${API_KEY}' -H 'accept: application/x-ndjson' ${base}/v1/contacts/export | wc -l`
    const child = spawn("sh", ["-c", curl], { stdio: ["ignore", "pipe", "inherit"] })
    let text = ""
    child.stdout.on("data", (chunk) => (text += chunk))
    child.on("close", (code) => (code === 0 ? resolve(Number(text.trim())) : reject(new Error(`curl | wc -l exited ${code}`))))
  })

const runExports = async (databaseUrl, runs, nodeArgs) => {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`
  const postmaster = parentOf(pid)
  for (let run = 0; run < runs; run++) {
    const host = await startHost({ databaseUrl, nodeArgs })
    try {
      for (let page = 0, cursor = null; page < 10 && cursor !== undefined; page++) {
        const answer = (await request(host.url, "GET", `/v1/contacts?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`)).json()
        cursor = answer.next_cursor ?? undefined
      }
      const before = residentBytes(host.pid)
      let max = before
      const sampler = setInterval(() => (max = Math.max(max, residentBytes(host.pid) ?? 0)), 20)
      const cpu = { host: cpuOf(host.pid), pg: treeCpu(postmaster) }
      const loadBefore = loadavg()[0]
      const started = performance.now()
      const rows = await curlLines(host.url)
      const seconds = (performance.now() - started) / 1000
      clearInterval(sampler)
      max = Math.max(max, residentBytes(host.pid) ?? 0)
      console.log(
        JSON.stringify({
          run,
          rows,
          seconds: Number(seconds.toFixed(2)),
          rate: Math.round(rows / seconds),
          rssGrowthMB: Number(((max - before) / MiB).toFixed(1)),
          hostCpu: Number((cpuOf(host.pid) - cpu.host).toFixed(1)),
          pgCpu: Number(treeCpuSince(cpu.pg, treeCpu(postmaster)).toFixed(1)),
          loadBefore,
          loadAfter: loadavg()[0]
        })
      )
    } finally {
      await host.stop()
    }
  }
  await sql.end()
}

if (command === "seed") await seedDatabase(url, rest[0], Number(rest[1] ?? 1_000_000))
else if (command === "run") await runExports(url, Number(rest[0] ?? 1), rest.slice(1))
else {
  console.error("usage: exportByCurl.mjs seed <server-url> <database> [contacts] | run <database-url> [runs] [node flags…]")
  process.exit(2)
}
