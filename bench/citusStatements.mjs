// Issue 31: where a command's time goes on Citus, statement by statement, against plain PostgreSQL
// (outside run.mjs, as exportByCurl.mjs).
//   node bench/citusStatements.mjs [commands]     (after `npm run build`; root, PostgreSQL 15 and Citus, as the citus scenario)
//   WORKSPACES=1 node bench/citusStatements.mjs … (over that many workspaces instead of 16)
//   SHARDS=1 node bench/citusStatements.mjs …     (the cluster's shard count, 32 unless told)
// Starts a plain PostgreSQL 15 and a Citus coordinator + 1 worker at 32 shards (SHARDS) (lib/pgServers.mjs,
// lib/citusClusters.mjs), both with pg_stat_statements (track = all, track_planning = on), gives each
// an engine as the citus scenario does, and runs `commands` (default 200) create-contacts, then as
// many move-stages, one at a time over 16 workspaces (WORKSPACES). For each command and server it prints the CPU
// per command of the server's processes and its statements: calls, execution and planning ms per
// command, whether top level (a statement run inside a function or trigger is not; its time is
// also in its caller's), and the text. Then the hop alone: a bare client's SELECT 1, a contact by
// id and the delegated ds_feed_bound_in, each sent to the plain server, the coordinator and the
// worker itself: ms and CPU per call.
import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { citusUnavailable, startCitusCluster } from "./lib/citusClusters.mjs"
import { treeCpu, treeCpuSince } from "./lib/cpuTime.mjs"
import { runTag } from "./lib/loop.mjs"
import { loadAverage } from "./lib/machine.mjs"
import { makeTemplate, startServerGroup } from "./lib/pgServers.mjs"
import { contactFields, dealFields, nextStage } from "./lib/systems/shared.mjs"

const commands = Number(process.argv[2] ?? 200)
const DATABASE = "bench"
const WORKSPACES = Number(process.env.WORKSPACES ?? 16)
const TOP = 24
const STATEMENTS = { "pg_stat_statements.track": "all", "pg_stat_statements.track_planning": "on" }

const unavailable = citusUnavailable()
if (unavailable !== null) {
  process.stderr.write(`citusStatements: ${unavailable}\n`)
  process.exit(2)
}

const ctxOf = (i) => ({ workspaceId: `bench-ws-${String(i).padStart(3, "0")}`, requestId: null, actor: "bench" })
const print = (line) => process.stdout.write(`${line}\n`)

print(
  `load average ${loadAverage()}; ${commands} create-contacts, then ${commands} move-stages, one at a time, over ${WORKSPACES} workspaces`
)
const template = await makeTemplate()
const group = startServerGroup("ds-bench-citus-statements-")
const engines = []
try {
  const [plain, cluster] = await Promise.all([
    (async () => {
      await group.copyTemplate(template, "plain")
      const server = await group.launchOnFreePort("plain", { shared_preload_libraries: "pg_stat_statements", ...STATEMENTS })
      await group.query(server, `CREATE DATABASE ${DATABASE}`)
      return server
    })(),
    startCitusCluster({
      group,
      template,
      name: "one",
      workers: 1,
      database: DATABASE,
      shardCount: Number(process.env.SHARDS ?? 32),
      settings: { shared_preload_libraries: "citus,pg_stat_statements", ...STATEMENTS }
    })
  ])
  const systems = [
    { name: "PostgreSQL 15", url: `postgres://postgres@127.0.0.1:${plain.port}/${DATABASE}`, servers: [["server", plain]] },
    {
      name: "Citus, 1 worker",
      url: cluster.url,
      servers: [
        ["coordinator", cluster.coordinator],
        ["worker", cluster.workers[0]]
      ]
    }
  ]
  for (const system of systems) {
    // On Citus the coordinator's CREATE EXTENSION reaches the worker (which refuses one of its own).
    await group.query(system.servers[0][1], "CREATE EXTENSION pg_stat_statements", DATABASE)
    system.crm = await createPromiseEngine(PgStorage.layer({ url: system.url, maxConnections: 10 }))
    engines.push(system.crm)
    system.pipelines = []
    for (let w = 0; w < WORKSPACES; w++) {
      const pipeline = (await system.crm.pipelines.list(ctxOf(w))).data[0]
      system.pipelines.push({ id: pipeline.id, stages: pipeline.stages.map((s) => s.id) })
    }
    system.deals = []
    for (let i = 0; i < 4 * WORKSPACES; i++) {
      const w = i % WORKSPACES
      const { data } = await system.crm.deals.create(ctxOf(w), { ...dealFields(i), pipeline_id: system.pipelines[w].id })
      system.deals.push({ w, id: data.id, stage: 0 })
    }
  }

  const series = {
    "create-contact": (system) => (i) => system.crm.contacts.create(ctxOf(i % WORKSPACES), contactFields(runTag, i)),
    "move-stage": (system) => async (i) => {
      const deal = system.deals[i % system.deals.length]
      const { stages } = system.pipelines[deal.w]
      const to = nextStage(deal.stage, stages.length)
      await system.crm.deals.moveStage(ctxOf(deal.w), deal.id, { stage_id: stages[to] }, null)
      deal.stage = to
    }
  }
  for (const [name, make] of Object.entries(series)) {
    for (const system of systems) {
      const op = make(system)
      for (let i = 0; i < 20; i++) await op(commands + i)
      for (const [, server] of system.servers) await group.query(server, "SELECT pg_stat_statements_reset()", DATABASE)
      const before = system.servers.map(([, server]) => treeCpu(server.postmaster))
      const started = performance.now()
      for (let i = 0; i < commands; i++) await op(i)
      const elapsed = performance.now() - started
      const cpu = system.servers.map(([, server], k) => treeCpuSince(before[k], treeCpu(server.postmaster)))
      print("")
      print(
        `## ${name} on ${system.name}: ${(elapsed / commands).toFixed(2)} ms a command; CPU per command ` +
          system.servers.map(([role], k) => `${role} ${((cpu[k] * 1000) / commands).toFixed(2)} ms`).join(", ")
      )
      for (const [role, server] of system.servers) {
        const rows = await group.query(
          server,
          // One row per statement whatever shard it wrote: the shard's number is cut from the text.
          `SELECT sum(calls) AS calls, sum(total_exec_time) AS exec, sum(total_plan_time) AS plan, toplevel, text
           FROM (SELECT calls, total_exec_time, total_plan_time, toplevel,
                   left(regexp_replace(regexp_replace(query, '\\s+', ' ', 'g'), '(ds_[a-z_]+)_[0-9]{6}', '\\1_<shard>', 'g'), 120) AS text
                 FROM pg_stat_statements JOIN pg_database AS d ON d.oid = dbid
                 WHERE d.datname = '${DATABASE}' AND query NOT LIKE '%pg_stat_statements%') AS s
           GROUP BY toplevel, text
           ORDER BY sum(total_exec_time) + sum(total_plan_time) DESC LIMIT ${TOP}`,
          DATABASE
        )
        print(`### ${role}: calls, exec ms, plan ms per command; top level; statement`)
        for (const row of rows)
          print(
            `${(row.calls / commands).toFixed(2)}\t${(row.exec / commands).toFixed(3)}\t${(row.plan / commands).toFixed(3)}\t` +
              `${row.toplevel ? "top" : "nested"}\t${row.text}`
          )
      }
    }
  }

  // The hop alone: the same statements by a bare client, sent to the plain server, to the
  // coordinator, and to the worker itself (Citus keeps its metadata on the workers too, so a worker
  // plans a statement on a distributed table and runs it where the workspace lives: here, locally).
  const [plainSystem, citusSystem] = systems
  const contact = (await citusSystem.crm.contacts.list(ctxOf(0), { limit: "1" })).data[0]
  const plainContact = (await plainSystem.crm.contacts.list(ctxOf(0), { limit: "1" })).data[0]
  const workspace = ctxOf(0).workspaceId
  const targets = [
    { name: "plain server", server: plain, roles: [["server", plain]], id: plainContact.id },
    {
      name: "coordinator",
      server: cluster.coordinator,
      roles: [
        ["coordinator", cluster.coordinator],
        ["worker", cluster.workers[0]]
      ],
      id: contact.id
    },
    {
      name: "the worker, directly",
      server: cluster.workers[0],
      roles: [
        ["coordinator", cluster.coordinator],
        ["worker", cluster.workers[0]]
      ],
      id: contact.id
    }
  ]
  const statements = [
    { name: "SELECT 1", run: (sql) => sql`SELECT 1`, plain: true },
    {
      name: "a contact by id (router query)",
      run: (sql, id) => sql`SELECT data FROM ds_contacts WHERE workspace_id = ${workspace} AND id = ${id}`,
      plain: true
    },
    {
      name: "ds_feed_bound_in(workspace) (delegated function)",
      run: (sql) => sql`SELECT ds_feed_bound_in(${workspace}) AS bound`,
      plain: false
    }
  ]
  print("")
  print(`## the hop: ${commands * 5} calls each, one at a time, a bare client (postgres.js, prepared statements)`)
  print("statement\tsent to\tms a call\tCPU ms a call per server")
  for (const statement of statements) {
    for (const target of targets) {
      if (target.server === plain && !statement.plain) continue
      const sql = group.connect(target.server, DATABASE)
      for (let i = 0; i < 50; i++) await statement.run(sql, target.id)
      const before = target.roles.map(([, server]) => treeCpu(server.postmaster))
      const started = performance.now()
      for (let i = 0; i < commands * 5; i++) await statement.run(sql, target.id)
      const elapsed = performance.now() - started
      const cpu = target.roles.map(
        ([role, server], k) => `${role} ${((treeCpuSince(before[k], treeCpu(server.postmaster)) * 1000) / (commands * 5)).toFixed(3)}`
      )
      print(`${statement.name}\t${target.name}\t${(elapsed / (commands * 5)).toFixed(3)}\t${cpu.join(", ")}`)
      await sql.end({ timeout: 1 })
    }
  }
  print("")
  print(`load average ${loadAverage()}`)
} finally {
  for (const crm of engines) await crm.dispose().catch(() => {})
  await group.stop()
  template.remove()
}
