// `node bench/run.mjs --profile commit|http|all [--quick]`: CPU profiles of dealstream under load.
//   commit: the engine alone (bench/lib/commitLoad.mjs) under create-contact and move-stage at
//           concurrency 8 and 32, profiled during the measured window only;
//   http:   the host process started with `--cpu-prof` (its whole life: start-up, a little seeding,
//           then the load) under autocannon GET one contact (on PostgreSQL and on memory storage),
//           POST contact and the list page, one host per load.
// PostgreSQL runs with pg_stat_statements here, so each summary also lists the statements one
// command or request issues. Profiles and their summaries (`*.top.md`: self time per area and per
// function, statements per operation) go to bench/profiles/.
import { spawn } from "node:child_process"
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { LIST_PATH, POST_BODY, prepareHost } from "../scenarios/http.mjs"
import { autocannonRuns } from "./autocannon.mjs"
import { summarise } from "./cpuProfileTop.mjs"
import { startPostgres } from "./postgres.mjs"
import { authHeaders } from "./processes.mjs"

const dir = fileURLToPath(new URL("../profiles/", import.meta.url))

/** commitLoad.mjs: waits until it is warm, resets the statement statistics, lets it run. */
const runCommitLoad = (script, args, pg) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", async (chunk) => {
      out += chunk
      if (out === "warm\n") {
        await pg.resetStatements()
        child.stdin.end("go\n")
      }
    })
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`commitLoad exited ${code}`))
    )
  })

export const profile = async ({ what, quick, log }) => {
  const seconds = quick ? 5 : 15
  const wanted = what === "all" ? ["commit", "http"] : [what]
  if (!wanted.every((w) => ["commit", "http"].includes(w))) throw new Error(`--profile takes commit, http or all, not ${what}`)
  mkdirSync(dir, { recursive: true })
  const pg = await startPostgres({ log, settings: { shared_preload_libraries: "pg_stat_statements" } })
  const written = []
  const statementsTable = async (database, operations) => {
    const rows = await pg.statements(database)
    const total = rows.reduce((sum, row) => sum + row.total_ms, 0)
    return [
      `Statements per operation (pg_stat_statements over ${operations} operations; ${(rows.reduce((sum, row) => sum + row.calls, 0) / operations).toFixed(2)} statements and ` +
        `${(total / operations).toFixed(2)} ms of execution per operation):`,
      "",
      "| statement | per op | mean ms | % of DB time |",
      "|---|---:|---:|---:|",
      ...rows
        .filter((row) => row.calls / operations >= 0.01)
        .slice(0, 15)
        .map(
          (row) =>
            `| \`${row.query.replace(/\s+/g, " ").slice(0, 150).replaceAll("|", "\\|")}\` | ${(row.calls / operations).toFixed(2)} | ${row.mean_ms.toFixed(3)} | ${((row.total_ms / total) * 100).toFixed(1)} |`
        )
    ].join("\n")
  }
  const summary = (name, file, note, statements) => {
    const md = `# ${name}\n\n${note}\n\n${summarise(file)}\n\n${statements}\n`
    writeFileSync(join(dir, `${name}.top.md`), md)
    process.stdout.write(`\n${md}`)
    written.push(file)
  }
  try {
    if (wanted.includes("commit")) {
      const script = fileURLToPath(new URL("commitLoad.mjs", import.meta.url))
      for (const command of ["create-contact", "move-stage"]) {
        for (const concurrency of [8, 32]) {
          const name = `commit-${command}-c${concurrency}`
          const database = `bench_profile_${command.replace("-", "_")}_${concurrency}`
          const url = await pg.createDatabase(database)
          const file = join(dir, `${name}.cpuprofile`)
          log(`profiling ${name} for ${seconds} s…`)
          const { rate, done, failed } = await runCommitLoad(script, [url, command, String(concurrency), String(seconds), file], pg)
          summary(
            name,
            file,
            `Engine on PostgreSQL in one process, ${command} at concurrency ${concurrency} for ${seconds} s: ${Math.round(rate)} cmd/s (${failed} failed).`,
            await statementsTable(database, done)
          )
        }
      }
    }
    if (wanted.includes("http")) {
      const loads = [
        { name: "http-get", method: "GET", path: (ready) => ready.getPath },
        { name: "http-get-memory", method: "GET", path: (ready) => ready.getPath, memory: true },
        { name: "http-post", method: "POST", path: () => "/v1/contacts", body: POST_BODY },
        { name: "http-list", method: "GET", path: () => LIST_PATH }
      ]
      for (const load of loads) {
        const profileDir = join(dir, `${load.name}-raw`)
        rmSync(profileDir, { recursive: true, force: true })
        log(`profiling ${load.name} for ${seconds} s…`)
        const database = load.memory ? undefined : `bench_profile_${load.name.replaceAll("-", "_")}`
        const ready = await prepareHost({
          pg,
          database,
          listContacts: 300,
          nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]
        })
        if (database !== undefined) await pg.resetStatements()
        const [result] = await autocannonRuns([
          {
            url: ready.host.url,
            method: load.method,
            path: load.path(ready),
            headers: { ...authHeaders, ...(load.body ? { "content-type": "application/json" } : {}) },
            body: load.body,
            uniqueEmail: load.body !== undefined,
            connections: 50,
            duration: seconds
          }
        ])
        await ready.host.stop()
        const [written] = readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile"))
        if (written === undefined) throw new Error(`the host wrote no profile in ${profileDir}`)
        const file = join(dir, `${load.name}.cpuprofile`)
        renameSync(join(profileDir, written), file)
        rmSync(profileDir, { recursive: true, force: true })
        summary(
          load.name,
          file,
          `Host process${load.memory ? " on memory storage" : ""} (\`--cpu-prof\`, whole life: start-up, seeding 300 contacts, then the load) under autocannon ${load.method} ${load.name === "http-list" ? "list page" : load.path(ready).replace(/con_\w+/, "con_…")}, 50 connections, ${seconds} s: ` +
            `${Math.round(result.rps)} req/s, p99 ${result.p99} ms.`,
          database === undefined ? "" : await statementsTable(database, result.ok + result.non2xx)
        )
      }
    }
  } finally {
    await pg.stop()
  }
  log(`profiles in ${dir}: ${written.map((f) => f.slice(dir.length)).join(", ")}`)
}
