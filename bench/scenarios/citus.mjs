// Issue 31 item 5: dealstream's engine on a Citus cluster against plain PostgreSQL, on this machine.
// Three systems, all the machine's PostgreSQL 15 (lib/pgServers.mjs: the postgres user, a PID
// namespace per server, free ports, /dev/shm, fsync and synchronous_commit on): a plain server; a
// Citus coordinator + 1 worker; a Citus coordinator + 2 workers (lib/citusClusters.mjs). Each gets
// one engine in this process (`createPromiseEngine(PgStorage.layer(url))`, whose first connect
// migrates the database, distributing its tables on Citus), many workspaces, and the same commands
// and reads, the systems interleaved in every round so that the machine's load hits all alike.
// Two cores cannot show Citus's scaling: what is measured is what routing costs per command and per
// read, and where the CPU goes (coordinator, workers, the engine), from which bench/ANALYSIS.md
// works out the capacity of N workers on machines of their own.
import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { citusUnavailable, startCitusCluster } from "../lib/citusClusters.mjs"
import { treeCpu, treeCpuSince } from "../lib/cpuTime.mjs"
import { closedLoop, forEachConcurrently, runTag } from "../lib/loop.mjs"
import { loadAverage } from "../lib/machine.mjs"
import { makeTemplate, startServerGroup } from "../lib/pgServers.mjs"
import { ratios } from "../lib/stats.mjs"
import { contactFields, dealFields, nextStage } from "../lib/systems/shared.mjs"

const SCENARIO = "citus (issue 31)"
const DATABASE = "bench"
const POOL_SIZE = 10
const CONCURRENCIES = [1, 8]
/** The concurrency whose windows give the CPU rows (the CPU per command varies little with it). */
const CPU_CONCURRENCY = 8
/** Issue 31: on Citus, a command costs at most 1.3× its cost on plain PostgreSQL on this machine. */
const TARGET = 1.3
const SOURCES = ["webinar", "referral", "ads", "organic", "event", "partner"]
const LIST = { filter: JSON.stringify({ source: "webinar" }), sort: "-created_at", limit: "25" }
const FEED_PAGE = { limit: "50" }

const workspaceName = (i) => `bench-ws-${String(i).padStart(3, "0")}`
const ctxOf = (workspaceId) => ({ workspaceId, requestId: null, actor: "bench" })
const ms = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2))

/** A system's deals dealt out so that no two loop workers ever move the same deal. */
const dealsFor = (deals, concurrency) => Array.from({ length: concurrency }, (_, w) => deals.filter((_, i) => i % concurrency === w))

/** CPU seconds so far of the system's coordinator (or plain server), of each worker, and of this process (the engine). */
const cpuSnapshot = (system) => ({
  coordinator: treeCpu(system.coordinator.postmaster),
  workers: system.workers.map((worker) => treeCpu(worker.postmaster)),
  bench: process.cpuUsage()
})
const cpuSince = (before, after) => ({
  coordinator: treeCpuSince(before.coordinator, after.coordinator),
  workers: after.workers.reduce((sum, snapshot, i) => sum + (treeCpuSince(before.workers[i], snapshot) ?? Number.NaN), 0),
  bench: (() => {
    const spent = process.cpuUsage(before.bench)
    return (spent.user + spent.system) / 1e6
  })()
})

/** Seeds a system through its own engine: each workspace's pipeline, the deals, the read workspaces' contacts. */
const seed = async (system, { workspaces, deals, readWorkspaces, readContacts }) => {
  const { crm } = system
  system.pipelines = new Array(workspaces.length)
  await forEachConcurrently(workspaces.length, 8, async (i) => {
    const pipeline = (await crm.pipelines.list(ctxOf(workspaces[i]))).data[0]
    system.pipelines[i] = { id: pipeline.id, stages: pipeline.stages.map((s) => s.id) }
  })
  system.deals = new Array(deals)
  await forEachConcurrently(deals, 8, async (i) => {
    const w = i % workspaces.length
    const { data } = await crm.deals.create(ctxOf(workspaces[w]), { ...dealFields(i), pipeline_id: system.pipelines[w].id })
    system.deals[i] = { workspace: w, id: data.id, stage: 0 }
  })
  system.readers = workspaces.slice(0, readWorkspaces).map((workspace) => ({ workspace, ids: new Array(readContacts) }))
  await forEachConcurrently(readWorkspaces * readContacts, 8, async (k) => {
    const reader = system.readers[k % readWorkspaces]
    const i = Math.floor(k / readWorkspaces)
    const { data } = await crm.contacts.create(ctxOf(reader.workspace), {
      ...contactFields(`${runTag}-read`, k),
      source: SOURCES[i % SOURCES.length]
    })
    reader.ids[i] = data.id
  })
  system.created = readWorkspaces * readContacts
}

export const citus = async ({ settings, runs, log }) => {
  const unavailable = citusUnavailable()
  if (unavailable !== null) {
    log(`citus: SKIPPED: ${unavailable}`)
    return { rows: [], notes: [`Skipped: ${unavailable}.`], failures: [] }
  }
  const { seconds, warmupSeconds, workspaces: workspaceCount, deals, readWorkspaces, readContacts, shardCount } = settings
  const workspaces = Array.from({ length: workspaceCount }, (_, i) => workspaceName(i))
  const loadAtStart = loadAverage()
  const failures = []
  const template = await makeTemplate()
  const group = startServerGroup("ds-bench-citus-")
  const systems = []
  try {
    const started = Date.now()
    const [plain, one, two] = await Promise.all([
      (async () => {
        await group.copyTemplate(template, "plain")
        const server = await group.launchOnFreePort("plain")
        await group.query(server, `CREATE DATABASE ${DATABASE}`)
        return server
      })(),
      startCitusCluster({ group, template, name: "one", workers: 1, database: DATABASE, shardCount }),
      startCitusCluster({ group, template, name: "two", workers: 2, database: DATABASE, shardCount })
    ])
    log(`  servers: plain, a coordinator + 1 worker, a coordinator + 2 workers started (${((Date.now() - started) / 1000).toFixed(1)} s)`)
    const definitions = [
      {
        key: "plain",
        name: "PostgreSQL 15",
        coordinator: plain,
        workers: [],
        url: `postgres://postgres@127.0.0.1:${plain.port}/${DATABASE}`
      },
      { key: "one", name: "Citus, 1 worker", coordinator: one.coordinator, workers: one.workers, url: one.url, cluster: one },
      { key: "two", name: "Citus, 2 workers", coordinator: two.coordinator, workers: two.workers, url: two.url, cluster: two }
    ]
    for (const definition of definitions) {
      const t0 = Date.now()
      const crm = await createPromiseEngine(PgStorage.layer({ url: definition.url, maxConnections: POOL_SIZE }))
      const system = { ...definition, crm }
      systems.push(system)
      const migrated = Date.now()
      await seed(system, { workspaces, deals, readWorkspaces, readContacts })
      log(
        `  ${system.name}: migrated ${((migrated - t0) / 1000).toFixed(1)} s, seeded ${workspaces.length} pipelines, ${deals} deals and ` +
          `${readWorkspaces * readContacts} contacts in ${((Date.now() - migrated) / 1000).toFixed(1)} s`
      )
      if (system.cluster !== undefined) {
        const spread = await system.cluster.workspacesPerWorker(workspaces)
        const readSpread = await system.cluster.workspacesPerWorker(system.readers.map((r) => r.workspace))
        log(
          `  ${system.name}: workspaces per worker ${system.workers.map((w) => `${w.name} ${spread.get(w.port) ?? 0}`).join(", ")} ` +
            `(read workspaces ${system.workers.map((w) => readSpread.get(w.port) ?? 0).join(", ")})`
        )
        system.spread = system.workers.map((w) => spread.get(w.port) ?? 0)
        if (system.spread.some((n) => n === 0)) failures.push(`${system.name}: a worker holds none of the ${workspaces.length} workspaces`)
      }
    }

    // The operations. Every command and read names one workspace, as the engine's requests do.
    let n = 0
    const commands = {
      "create-contact": (system) => async () => {
        const k = n++
        await system.crm.contacts.create(ctxOf(workspaces[k % workspaces.length]), contactFields(runTag, k))
        system.created++
      },
      "move-stage": (system, concurrency) => {
        const mine = dealsFor(system.deals, concurrency)
        return async (worker, i) => {
          const deal = mine[worker][i % mine[worker].length]
          const { stages } = system.pipelines[deal.workspace]
          const to = nextStage(deal.stage, stages.length)
          await system.crm.deals.moveStage(ctxOf(workspaces[deal.workspace]), deal.id, { stage_id: stages[to] }, null)
          deal.stage = to
        }
      }
    }
    const readerOf = (system, i) => system.readers[i % system.readers.length]
    const reads = {
      "GET one contact": (system) => (_, i) => {
        const reader = readerOf(system, i)
        return system.crm.contacts.get(ctxOf(reader.workspace), reader.ids[(i * 7919) % reader.ids.length], null)
      },
      "list page": (system) => (_, i) => system.crm.contacts.list(ctxOf(readerOf(system, i).workspace), LIST),
      "change feed page": (system) => (_, i) => system.crm.events.list(ctxOf(readerOf(system, i).workspace), FEED_PAGE)
    }

    // The same reads must answer the same on every system: as many contacts on the list page and
    // as many events on the feed page (the read workspaces were seeded alike).
    const shapes = await Promise.all(
      systems.map(async (system) => {
        const reader = system.readers[0]
        const list = await system.crm.contacts.list(ctxOf(reader.workspace), LIST)
        const feed = await system.crm.events.list(ctxOf(reader.workspace), FEED_PAGE)
        return `list ${list.data.length}, feed ${feed.data.length}`
      })
    )
    log(`  first read workspace: ${systems.map((s, i) => `${s.name} ${shapes[i]}`).join("; ")}`)
    if (new Set(shapes).size > 1) failures.push(`the read workspaces answer differently: ${shapes.join(" / ")}`)

    for (const system of systems) {
      for (const [name, command] of Object.entries(commands)) {
        const warm = await closedLoop({ concurrency: 8, seconds: warmupSeconds, op: command(system, 8) })
        if (warm.failed > 0) throw new Error(`${system.name} ${name} fails while warming up: ${warm.firstError?.message}`)
      }
      for (const [name, read] of Object.entries(reads)) {
        const warm = await closedLoop({ concurrency: 1, seconds: warmupSeconds / 2, op: read(system) })
        if (warm.failed > 0) throw new Error(`${system.name} ${name} fails while warming up: ${warm.firstError?.message}`)
      }
    }

    /** One window: the loop, and the CPU each part of the system spent in it, per operation (ms). */
    const measure = async (system, concurrency, op, what) => {
      const before = cpuSnapshot(system)
      const result = await closedLoop({ concurrency, seconds, op })
      const spent = cpuSince(before, cpuSnapshot(system))
      if (result.failed > 0) failures.push(`${system.name} ${what}: ${result.failed} failed (${result.firstError?.message})`)
      const per = (x) => (x === null ? Number.NaN : (x * 1000) / Math.max(result.done, 1))
      return {
        rate: result.rate,
        ms: (1000 * concurrency) / result.rate,
        cpu: { coordinator: per(spent.coordinator), workers: per(spent.workers), bench: per(spent.bench) }
      }
    }
    const slot = (table, key, system) => {
      table[key] ??= {}
      table[key][system.key] ??= { rate: [], ms: [], cpu: { coordinator: [], workers: [], bench: [] } }
      return table[key][system.key]
    }
    const record = (target, m) => {
      target.rate.push(m.rate)
      target.ms.push(m.ms)
      for (const part of ["coordinator", "workers", "bench"]) target.cpu[part].push(m.cpu[part])
    }
    const cpuText = (system, m) =>
      system.workers.length === 0 ? `server ${ms(m.cpu.coordinator)}` : `coordinator ${ms(m.cpu.coordinator)}, workers ${ms(m.cpu.workers)}`

    const commandResults = {}
    const readResults = {}
    for (let run = 0; run < runs; run++) {
      // Rotate who goes first, so that no system always runs on the warmest (or most tired) machine.
      const order = systems.map((_, i) => systems[(i + run) % systems.length])
      for (const [name, command] of Object.entries(commands)) {
        for (const concurrency of CONCURRENCIES) {
          const line = []
          for (const system of order) {
            const m = await measure(system, concurrency, command(system, concurrency), `${name} c=${concurrency}`)
            record(slot(commandResults, `${name}|${concurrency}`, system), m)
            line.push(`${system.name} ${Math.round(m.rate)}/s ${ms(m.ms)} ms (CPU ms: ${cpuText(system, m)}, engine ${ms(m.cpu.bench)})`)
          }
          log(`  run ${run + 1}/${runs} ${name} c=${concurrency}: ${line.join("; ")}`)
        }
      }
      for (const [name, read] of Object.entries(reads)) {
        const line = []
        for (const system of order) {
          const m = await measure(system, 1, read(system), name)
          record(slot(readResults, name, system), m)
          line.push(`${system.name} ${ms(m.ms)} ms (CPU ms: ${cpuText(system, m)}, engine ${ms(m.cpu.bench)})`)
        }
        log(`  run ${run + 1}/${runs} ${name}: ${line.join("; ")}`)
      }
    }

    // Every acknowledged create is stored once; on Citus the events are on the workers.
    for (const system of systems) {
      const sql = group.connect(system.coordinator, DATABASE)
      const [{ contacts }] = await sql`SELECT count(*)::int AS contacts FROM ds_contacts`
      if (contacts !== system.created) failures.push(`${system.name}: ${system.created} contacts acknowledged, ${contacts} in ds_contacts`)
      if (system.cluster !== undefined) {
        const perWorker = await sql`SELECT n.nodeport AS port, sum(r.result::bigint)::int AS events
          FROM run_command_on_shards('ds_events', 'SELECT count(*) FROM %s') AS r
          JOIN pg_dist_placement AS p ON p.shardid = r.shardid
          JOIN pg_dist_node AS n ON n.groupid = p.groupid
          GROUP BY 1`
        const events = new Map(perWorker.map((row) => [row.port, row.events]))
        system.events = system.workers.map((w) => events.get(w.port) ?? 0)
        log(
          `  ${system.name}: ${contacts} contacts; events per worker ${system.workers.map((w, i) => `${w.name} ${system.events[i]}`).join(", ")}`
        )
        if (system.events.some((e) => e === 0)) failures.push(`${system.name}: a worker holds no event`)
      } else log(`  ${system.name}: ${contacts} contacts`)
      await sql.end({ timeout: 1 })
    }

    const [base, ...citusSystems] = systems
    const rows = []
    const row = (measure, system, unit, values, extra = {}) =>
      rows.push({ scenario: SCENARIO, measure, system, unit, runs: values, ...extra })
    const costTarget = { text: `Citus ≤ ${TARGET}× PostgreSQL (issue 31)`, on: "value", atMost: TARGET }
    for (const name of Object.keys(commands)) {
      for (const concurrency of CONCURRENCIES) {
        const by = commandResults[`${name}|${concurrency}`]
        const measure = `${name}, concurrency ${concurrency}`
        for (const system of systems) row(`${measure}, throughput`, system.name, "cmd/s", by[system.key].rate)
        if (concurrency === 1) for (const system of systems) row(`${measure}, time per command`, system.name, "ms", by[system.key].ms)
        for (const system of citusSystems)
          row(
            `${measure}, cost per command ÷ PostgreSQL's (its throughput ÷ this one's)`,
            `${system.name} ÷ PostgreSQL 15`,
            "×",
            ratios(by[base.key].rate, by[system.key].rate),
            {
              target: costTarget
            }
          )
      }
      const by = commandResults[`${name}|${CPU_CONCURRENCY}`]
      const cpuMeasure = (what) => `${name}, concurrency ${CPU_CONCURRENCY}, CPU per command, ${what}`
      row(cpuMeasure("the server's processes"), base.name, "ms", by[base.key].cpu.coordinator)
      row(cpuMeasure("the engine (the bench process)"), base.name, "ms", by[base.key].cpu.bench)
      for (const system of citusSystems) {
        const cpu = by[system.key].cpu
        row(cpuMeasure("the coordinator's processes"), system.name, "ms", cpu.coordinator)
        row(cpuMeasure(`the worker${system.workers.length > 1 ? "s' processes (summed)" : "'s processes"}`), system.name, "ms", cpu.workers)
        row(cpuMeasure("the engine (the bench process)"), system.name, "ms", cpu.bench)
        row(
          cpuMeasure("the coordinator's share of the servers' (coordinator ÷ (coordinator + workers))"),
          system.name,
          "%",
          cpu.coordinator.map((c, i) => (100 * c) / (c + cpu.workers[i]))
        )
      }
    }
    for (const name of Object.keys(reads)) {
      const by = readResults[name]
      for (const system of systems) row(`${name}, time per read (concurrency 1)`, system.name, "ms", by[system.key].ms)
      for (const system of citusSystems)
        row(
          `${name}, cost per read ÷ PostgreSQL's (no target: a figure)`,
          `${system.name} ÷ PostgreSQL 15`,
          "×",
          ratios(by[system.key].ms, by[base.key].ms)
        )
      row(`${name}, CPU per read, the server's processes`, base.name, "ms", by[base.key].cpu.coordinator)
      for (const system of citusSystems) {
        row(`${name}, CPU per read, the coordinator's processes`, system.name, "ms", by[system.key].cpu.coordinator)
        row(
          `${name}, CPU per read, the worker${system.workers.length > 1 ? "s' processes (summed)" : "'s processes"}`,
          system.name,
          "ms",
          by[system.key].cpu.workers
        )
      }
    }

    const loadAtEnd = loadAverage()
    log(`  load average at the start ${loadAtStart}, at the end ${loadAtEnd}`)
    const twoWorkers = systems.find((s) => s.key === "two")
    const notes = [
      "Servers: all the machine's PostgreSQL 15 (/usr/lib/postgresql/15/bin), started by bench/lib/pgServers.mjs as the postgres user, each in a PID " +
        "namespace of its own, on free ports of 127.0.0.1, data in /dev/shm (a tmpfs: fsync and synchronous_commit are on, but a flush costs nothing " +
        "there, so no figure holds a disk flush), one initdb'd template copied for each: a plain server; a Citus 13.2.2 coordinator and 1 worker; " +
        "a coordinator and 2 workers (shared_preload_libraries=citus, max_prepared_transactions=100, " +
        `citus.shard_count=${shardCount}; database \`${DATABASE}\` on every node with CREATE EXTENSION citus, citus_set_coordinator_host and citus_add_node on ` +
        "the coordinator, as test/support/citusCluster.ts and docs/citus.md do). All six servers run at once, on the same 2 cores as the bench.",
      `Engine: \`createPromiseEngine(PgStorage.layer({ url, maxConnections: ${POOL_SIZE} }))\` in the bench process, one per system, given the plain ` +
        "server's or the coordinator's URL; its first connect migrates the database (on Citus, distributing every table by workspace_id and delegating " +
        `the \`…_in(workspace, …)\` functions: packages/storage-pg/src/citus.ts). ${workspaceCount} workspaces, each seeded with its pipeline, ` +
        `${deals} deals over them, and ${readContacts} contacts in each of the first ${readWorkspaces} (6 sources), the same on every system` +
        (twoWorkers?.spread === undefined
          ? "."
          : `; on the 2-worker cluster the workspaces fell ${twoWorkers.spread.join(" and ")} per worker.`),
      `Commands (closed loop, ${seconds} s a window, concurrency ${CONCURRENCIES.join(" and ")}): \`contacts.create\` in the workspaces round robin, and ` +
        "`deals.moveStage` to the pipeline's next stage on deals dealt out so that no two loop workers move the same one; each command in its " +
        `workspace, as the engine's requests are. Reads at concurrency 1 in the first ${readWorkspaces} workspaces round robin: \`contacts.get\` of a ` +
        `seeded contact, \`contacts.list(${JSON.stringify(LIST)})\`, and the first change feed page \`events.list(${JSON.stringify(FEED_PAGE)})\`. ` +
        `Warm-up: ${warmupSeconds} s of each command at concurrency 8 and ${warmupSeconds / 2} s of each read, per system. Every round measures each ` +
        "(command, concurrency) and each read on the three systems back to back, the order rotating from round to round; ratios are per round.",
      "Cost ratio of a command: PostgreSQL's throughput ÷ Citus's in the same round (= Citus's time per command ÷ PostgreSQL's); the target bounds it " +
        `at ${TARGET}×. At concurrency 8 the 2 cores are saturated, so that ratio is the ratio of the whole machine's CPU per command (servers, engine, ` +
        "bench): on Citus the coordinator and the workers share the cores the plain server has alone. The 1- and 2-worker clusters do the same work " +
        "per command; on 2 cores the second worker adds no capacity.",
      "CPU per command or read: user + system seconds of each server's postmaster and its processes (backends, Citus's maintenance daemon, " +
        "checkpointer, WAL writer; /proc, lib/cpuTime.mjs) and of the bench process (the engine), over the window ÷ the operations done in it.",
      "Checks: every create acknowledged is in ds_contacts once (counted on each system at the end); on Citus every worker holds some of the " +
        "workspaces and some events; the list and feed pages of the first read workspace hold as many rows on every system.",
      `Load average at the scenario's start ${loadAtStart}, at its end ${loadAtEnd} (1, 5, 15 minutes); other engineers' processes share the 2 cores.`
    ]
    return { rows, notes, failures }
  } finally {
    for (const system of systems) await system.crm.dispose().catch(() => {})
    await group.stop()
    template.remove()
  }
}
