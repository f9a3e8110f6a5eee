// Issue 30: the host on more than one PostgreSQL server (README "Running on several database
// servers"). Two parts, each on a PostgreSQL 15 primary and streaming standby of the machine's own
// binaries (lib/pgPair.mjs), not on the bench's embedded server:
// 1. Failover gap: 8 writers POST contacts with Idempotency-Keys through one host given both
//    servers; the primary is SIGKILLed and the synchronous standby promoted; how long until the
//    standby is promoted and until a write is answered again. Every acknowledged write must be on
//    the new primary, once. A fresh pair and host per round.
// 2. Replica reads: GET one contact and a list page with autocannon through a host given the
//    primary only, then through one also given the standby (DEALSTREAM_READ_URLS): req/s, p99, the
//    share of reads the replica served (/readyz), transactions and CPU per read on each server.
import { autocannonRuns } from "../lib/autocannon.mjs"
import { cpuOf, treeCpu, treeCpuSince } from "../lib/cpuTime.mjs"
import { forEachConcurrently, runTag } from "../lib/loop.mjs"
import { makeTemplate, pairUnavailable, startPgPair, waitUntil } from "../lib/pgPair.mjs"
import { authHeaders, request, startHost, WORKSPACE } from "../lib/processes.mjs"
import { median } from "../lib/stats.mjs"
import { contactFields } from "../lib/systems/shared.mjs"
import { LIST_PATH } from "./http.mjs"

const SCENARIO = "scale-out"
const SOURCES = ["webinar", "referral", "ads", "organic", "event", "partner"]
const DATABASE = "db"
/** How long a writer waits after a 503 before sending the same request again. */
const RETRY_PAUSE_MS = 25
/** How long the writers may go without an answered write after the promotion before the round fails. */
const RECOVERY_DEADLINE_MS = 30_000

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const ms = (x) => `${Math.round(x)} ms`
const urlOf = (...servers) =>
  `postgres://postgres@${servers.map((server) => `127.0.0.1:${server.port}`).join(",")}/${DATABASE}` +
  (servers.length > 1 ? "?target_session_attrs=read-write" : "")

// --- part 1: the failover gap ---------------------------------------------------------------------

/**
 * `writers` loops, each POSTing contacts with an Idempotency-Key, a 503 sent again (same key and
 * body) after a short pause until answered 201. Every attempt's start and answer time is kept.
 */
const startWriters = ({ host, writers, round }) => {
  const acknowledged = []
  const refused = []
  const problems = []
  let stopping = false
  let abandoned = false
  const writer = async (w) => {
    for (let k = 0; !stopping; k++) {
      const key = `${runTag}-${round}-${w}-${k}`
      const body = JSON.stringify(contactFields(`${runTag}-${round}-${w}`, k))
      for (;;) {
        const startedAt = performance.now()
        let response
        try {
          response = await fetch(`${host.url}/v1/contacts`, {
            method: "POST",
            headers: { ...authHeaders, "content-type": "application/json", "idempotency-key": key },
            body,
            signal: AbortSignal.timeout(RECOVERY_DEADLINE_MS)
          })
        } catch (error) {
          // The host never goes away: a request it did not answer is a failure, not a retry.
          problems.push(`${key}: no answer from the host: ${error.message}`)
          stopping = true
          return
        }
        const text = await response.text()
        const answeredAt = performance.now()
        if (response.status === 201) {
          acknowledged.push({
            key,
            id: JSON.parse(text).id,
            startedAt,
            answeredAt,
            replayed: response.headers.get("idempotent-replayed") === "true"
          })
          break
        }
        if (response.status !== 503) {
          problems.push(`${key}: answered ${response.status}, not 201 or 503: ${text.slice(0, 200)}`)
          stopping = true
          return
        }
        refused.push(answeredAt)
        if (abandoned) return
        await sleep(RETRY_PAUSE_MS)
      }
    }
  }
  const done = Promise.all(Array.from({ length: writers }, (_, w) => writer(w)))
  return {
    acknowledged,
    refused,
    problems,
    /** Each writer ends once its write in hand is answered 201. */
    stop: () => {
      stopping = true
      return done
    },
    /** A failed round: writers answered 503 give their write up. */
    abandon: () => {
      stopping = true
      abandoned = true
      return done
    }
  }
}

/** One round: a fresh synchronous pair and host, writes, the kill, the promotion, the check. */
const failoverRound = async ({ template, settings, round, log }) => {
  const { writers: writerCount, writesBefore, writesAfter } = settings
  const pair = await startPgPair({ template, synchronous: true })
  let host
  let writers
  try {
    const { primary, standby } = pair
    await pair.query(primary, `CREATE DATABASE ${DATABASE}`)
    host = await startHost({ databaseUrl: urlOf(primary, standby), env: { DEALSTREAM_READ_URLS: undefined } })
    // Open before the kill: polled for the end of recovery (a session outlives its server's promotion).
    const watch = pair.connect(standby)
    await watch`SELECT 1`

    writers = startWriters({ host, writers: writerCount, round })
    const healthy = () => {
      if (writers.problems.length > 0) throw Object.assign(new Error(writers.problems[0]), { fatal: true })
    }
    await waitUntil(`${writesBefore} writes before the fault`, async () => {
      healthy()
      return writers.acknowledged.length >= writesBefore ? true : undefined
    })

    const killedAt = performance.now()
    await pair.kill(primary)
    const goneAt = performance.now()
    await pair.promote(standby)
    await waitUntil(
      `${standby.name} to leave recovery`,
      async () => ((await watch`SELECT pg_is_in_recovery() AS recovering`)[0].recovering ? undefined : true),
      { everyMs: 5 }
    )
    const promotedAt = performance.now()
    // The first write answered to an attempt sent once the old primary was gone: it can only have
    // been applied on the promoted standby.
    const first = await waitUntil(
      "a write answered after the promotion",
      async () => {
        healthy()
        const after = writers.acknowledged.filter((a) => a.startedAt > goneAt)
        return after.length === 0 ? undefined : after.reduce((a, b) => (b.answeredAt < a.answeredAt ? b : a))
      },
      { deadlineMs: RECOVERY_DEADLINE_MS, everyMs: 5 }
    )
    await waitUntil(
      `${writesAfter} writes after the promotion`,
      async () => {
        healthy()
        return writers.acknowledged.filter((a) => a.startedAt > goneAt).length >= writesAfter ? true : undefined
      },
      { deadlineMs: RECOVERY_DEADLINE_MS }
    )
    await writers.stop()
    healthy()

    // Every acknowledged write on the new primary, once; nothing else (every write was sent until answered).
    const acknowledged = writers.acknowledged
    const ids = acknowledged.map((a) => a.id)
    const sql = pair.connect(standby, DATABASE)
    const [counts] = await sql`SELECT count(*)::int AS contacts, count(DISTINCT id)::int AS ids,
        count(*) FILTER (WHERE id = ANY(${ids}))::int AS acknowledged
      FROM ds_contacts WHERE workspace_id = ${WORKSPACE}`
    const keys = new Set(acknowledged.map((a) => a.key)).size
    const problems = []
    if (keys !== acknowledged.length) problems.push(`${acknowledged.length - keys} keys acknowledged more than once`)
    if (counts.acknowledged !== acknowledged.length || new Set(ids).size !== ids.length)
      problems.push(`${acknowledged.length} writes acknowledged, ${counts.acknowledged} of their ids in ds_contacts of the new primary`)
    if (counts.contacts !== acknowledged.length || counts.ids !== counts.contacts)
      problems.push(
        `${counts.contacts} contacts (${counts.ids} ids) in ds_contacts of the new primary, ${acknowledged.length} writes acknowledged`
      )
    const refusedAfter = writers.refused.filter((at) => at > killedAt)
    const result = {
      promoted: promotedAt - killedAt,
      firstAfterPromotion: first.answeredAt - promotedAt,
      firstAfterKill: first.answeredAt - killedAt,
      gone: goneAt - killedAt,
      acknowledged: acknowledged.length,
      replayed: acknowledged.filter((a) => a.replayed).length,
      refused: refusedAfter.length,
      lastRefusal: refusedAfter.length === 0 ? null : Math.max(...refusedAfter) - promotedAt,
      problems
    }
    log(
      `  round ${round + 1}: SIGKILL → all of the primary gone ${ms(result.gone)}, → promoted ${ms(result.promoted)}, ` +
        `→ first write answered ${ms(result.firstAfterKill)} (promoted → first write ${ms(result.firstAfterPromotion)}); ` +
        `${result.acknowledged} writes acknowledged (${result.replayed} replayed by their key), ${result.refused} answers 503 after the kill` +
        `${result.lastRefusal === null ? "" : `, the last ${ms(Math.abs(result.lastRefusal))} ${result.lastRefusal < 0 ? "before" : "after"} the promotion`}; ` +
        `ds_contacts on the new primary: ${counts.contacts}${problems.length === 0 ? " (each acknowledged write once)" : ` PROBLEM: ${problems.join("; ")}`}`
    )
    return result
  } catch (error) {
    throw new Error(`failover round ${round + 1}: ${error.message}\n${pair.logOf("node2")}`)
  } finally {
    await writers?.abandon()
    await host?.stop()
    await pair.stop()
  }
}

const failover = async ({ template, settings, runs, log }) => {
  const rounds = []
  for (let round = 0; round < runs; round++) rounds.push(await failoverRound({ template, settings, round, log }))
  const system = "1 host, PostgreSQL 15 primary + synchronous standby, pg_ctl promote"
  const measure = (what) => `failover gap: ${what} (no target: a figure)`
  const rows = [
    { scenario: SCENARIO, measure: measure("SIGKILL → promoted"), system, unit: "ms", runs: rounds.map((r) => r.promoted) },
    {
      scenario: SCENARIO,
      measure: measure("promoted → first write answered"),
      system,
      unit: "ms",
      runs: rounds.map((r) => r.firstAfterPromotion)
    },
    {
      scenario: SCENARIO,
      measure: measure("SIGKILL → first write answered"),
      system,
      unit: "ms",
      runs: rounds.map((r) => r.firstAfterKill)
    }
  ]
  const failures = rounds.flatMap((r, i) => r.problems.map((p) => `failover round ${i + 1}: ${p}`))
  const total = (key) => rounds.reduce((sum, r) => sum + r[key], 0)
  const notes = [
    `Failover gap (issue 30; no target, reported as figures): ${runs} round(s), each on a fresh PostgreSQL 15 primary and a synchronous standby ` +
      `(synchronous_standby_names naming it; synchronous_commit on) made by bench/lib/pgPair.mjs from the machine's own binaries ` +
      "(/usr/lib/postgresql/15/bin, run as the postgres user, each server in a PID namespace of its own so that a SIGKILL takes every process of it), " +
      "on free ports of 127.0.0.1, in a temporary directory in /dev/shm (a tmpfs: fsync is on but costs nothing there, so no figure holds a disk flush). One host (`packages/http/dist/bin.js serve --storage postgres`, " +
      "its own process) given `postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/db?target_session_attrs=read-write`. " +
      `${settings.writers} writers POST contacts with Idempotency-Keys, one request at a time each, a 503 sent again (same key and body) after ${RETRY_PAUSE_MS} ms. ` +
      `After ${settings.writesBefore} acknowledged writes the primary's postmaster is SIGKILLed (the kernel kills its every process with it), then, once ` +
      "they are all gone, `pg_ctl promote -W` runs on the standby and the bench polls `pg_is_in_recovery()` on a session opened before the kill, every 5 ms: " +
      "'promoted' is when it answers false. 'First write answered' is the earliest 201 to an attempt sent after the old primary was gone " +
      "(so applied on the new one); promoted → first write is negative when the host found the new primary before the bench's poll did. " +
      "The promotion is issued the moment the primary is gone: no failure detection is in these figures (a failover manager's, Patroni's ttl " +
      "and loop_wait say, comes on top).",
    `Failover checks: every acknowledged write is in ds_contacts of the new primary once, and nothing else is (every write was sent until answered): ` +
      `${total("acknowledged")} writes over ${runs} round(s), ${total("replayed")} of them answered by an Idempotency-Key replay ` +
      `(applied by an attempt whose answer was cut off), ${total("refused")} answers 503 after the kills. ` +
      `SIGKILL → every process of the primary gone: ${rounds.map((r) => ms(r.gone)).join(", ")}.`
  ]
  return { rows, notes, failures }
}

// --- part 2: reads through a host with one replica and with none -------------------------------

const readyz = async (host) => {
  const response = await fetch(`${host.url}/readyz`)
  const body = await response.json()
  if (response.status !== 200) throw new Error(`/readyz answered ${response.status}: ${JSON.stringify(body)}`)
  return body
}

/** Reads served by replicas so far, from /readyz; null when the host lists no replica (a build without the feature). */
const servedByReplicas = async (host) => {
  const { replicas } = await readyz(host)
  return Array.isArray(replicas) && replicas.length > 0 ? replicas.reduce((sum, replica) => sum + Number(replica.served ?? 0), 0) : null
}

const replicaReads = async ({ template, settings, runs, log }) => {
  const { seconds, warmupSeconds, connections, contacts, statsSettleSeconds } = settings
  const pair = await startPgPair({ template, synchronous: false })
  const hosts = []
  const failures = []
  try {
    const { primary, standby } = pair
    await pair.query(primary, `CREATE DATABASE ${DATABASE}`)
    const primaryOnly = await startHost({ databaseUrl: urlOf(primary), env: { DEALSTREAM_READ_URLS: undefined } })
    hosts.push(primaryOnly)
    // The second host starts (on the schema the first made) while the first seeds.
    const starting = startHost({ databaseUrl: urlOf(primary), env: { DEALSTREAM_READ_URLS: urlOf(standby) } }).then((host) => {
      hosts.push(host)
      return host
    })
    const seeded = (async () => {
      const { json } = await request(primaryOnly.url, "POST", "/v1/contacts", contactFields(runTag, "get"))
      await forEachConcurrently(contacts, 8, (i) =>
        request(primaryOnly.url, "POST", "/v1/contacts", { ...contactFields(runTag, i), source: SOURCES[i % SOURCES.length] })
      )
      return `/v1/contacts/${json().id}`
    })()
    const [withReplica, getPath] = await Promise.all([starting, seeded])
    const ready = await readyz(withReplica)
    const served = Array.isArray(ready.replicas) && ready.replicas.length > 0
    log(`  /readyz of the host with DEALSTREAM_READ_URLS: ${JSON.stringify(ready)}`)
    if (!served)
      log("  the host lists no replicas in /readyz: DEALSTREAM_READ_URLS is not served by this build; its reads go to the primary")

    // A read after the caller's own write must see it, wherever it is served.
    const probes = 10
    for (let i = 0; i < probes; i++) {
      const created = (await request(withReplica.url, "POST", "/v1/contacts", contactFields(`${runTag}-ryw`, i))).json()
      const read = await request(withReplica.url, "GET", `/v1/contacts/${created.id}`, undefined, [200, 404])
      if (read.status !== 200) failures.push(`GET of a contact just created through the host with a replica answered ${read.status}`)
    }
    await pair.caughtUp(standby, primary)

    // Snapshots: reads served by the replica (/readyz), CPU of the host and of each server's
    // processes, and each server's committed and rolled-back transactions on db.
    const admins = { primary: pair.connect(primary), replica: pair.connect(standby) }
    const transactions = async () => {
      const of = async (sql) =>
        Number((await sql`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = ${DATABASE}`)[0].n)
      return { primary: await of(admins.primary), replica: await of(admins.replica) }
    }
    const cpu = (host) => ({ host: cpuOf(host.pid), primary: treeCpu(primary.postmaster), replica: treeCpu(standby.postmaster) })
    const cpuSince = (before, after) => ({
      host: before.host === null || after.host === null ? null : after.host - before.host,
      primary: treeCpuSince(before.primary, after.primary),
      replica: treeCpuSince(before.replica, after.replica)
    })

    const endpoints = [
      { measure: "GET one contact", path: getPath },
      { measure: `list page (${contacts.toLocaleString("en-US")} contacts)`, path: LIST_PATH }
    ]
    const systems = [
      { key: "primaryOnly", host: primaryOnly },
      { key: "withReplica", host: withReplica }
    ]
    const shoot = async (host, path, duration) => {
      const [result] = await autocannonRuns([{ url: host.url, method: "GET", path, headers: authHeaders, connections, duration }])
      const bad = result.non2xx + result.errors + result.timeouts
      if (bad > 0)
        failures.push(`GET ${path} through ${host.url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`)
      return result
    }
    if (warmupSeconds > 0) for (const endpoint of endpoints) for (const { host } of systems) await shoot(host, endpoint.path, warmupSeconds)

    // The timed runs, the two hosts side by side in each round. The last one also counts each
    // server's transactions, between snapshots taken once the statistics settled: a PostgreSQL 15
    // backend flushes its counts at most once a second, and one that goes idle within a second of
    // its last flush flushes again only 10 s later (PGSTAT_IDLE_INTERVAL).
    const measured = endpoints.map(() => ({}))
    let xactsBefore = null
    for (let run = 0; run < runs; run++) {
      const counting = run === runs - 1
      if (counting) {
        await sleep(statsSettleSeconds * 1000)
        xactsBefore = await transactions()
      }
      for (const [i, endpoint] of endpoints.entries()) {
        for (const { key, host } of systems) {
          const servedBefore = await servedByReplicas(withReplica)
          const cpuBefore = cpu(host)
          const result = await shoot(host, endpoint.path, seconds)
          const spent = cpuSince(cpuBefore, cpu(host))
          const servedAfter = await servedByReplicas(withReplica)
          // autocannon's 2xx answers. It stops with up to one request in flight per connection, left
          // out of that count, which the host may still serve (and /readyz count): the share can
          // pass 100% by at most `connections` reads.
          const reads = result.ok
          measured[i][key] ??= { rps: [], p99: [], share: [], xacts: {}, cpu: { host: [], primary: [], replica: [] } }
          const slot = measured[i][key]
          slot.rps.push(result.rps)
          slot.p99.push(result.p99)
          slot.share.push(servedBefore === null || servedAfter === null ? Number.NaN : ((servedAfter - servedBefore) / reads) * 100)
          for (const part of ["host", "primary", "replica"])
            slot.cpu[part].push(spent[part] === null ? Number.NaN : (spent[part] * 1000) / reads)
          let counted = ""
          if (counting) {
            await sleep(statsSettleSeconds * 1000)
            const xactsAfter = await transactions()
            for (const server of ["primary", "replica"]) {
              const count = xactsAfter[server] - xactsBefore[server]
              slot.xacts[server] = [count / reads]
              counted += `, ${server} ${count} (${(count / reads).toFixed(2)} per read)`
            }
            xactsBefore = xactsAfter
          }
          log(
            `  run ${run + 1}/${runs} ${endpoint.measure}, ${key}: ${Math.round(result.rps)} req/s p99 ${result.p99} ms; ` +
              `replica served ${servedBefore === null ? "– (not listed)" : `${servedAfter - servedBefore} of ${reads}`}; ` +
              `CPU ms per read: host ${slot.cpu.host[run].toFixed(3)}, primary ${slot.cpu.primary[run].toFixed(3)}, replica ${slot.cpu.replica[run].toFixed(3)}` +
              (counting ? `; transactions on db${counted}` : "")
          )
        }
      }
    }

    const label = { primaryOnly: "host, primary only", withReplica: "host + 1 replica (DEALSTREAM_READ_URLS)" }
    const rows = []
    for (const [i, endpoint] of endpoints.entries()) {
      const m = measured[i]
      const base = { scenario: SCENARIO }
      for (const key of ["primaryOnly", "withReplica"])
        rows.push({
          ...base,
          measure: `replica reads, ${endpoint.measure}, throughput`,
          system: label[key],
          unit: "req/s",
          runs: m[key].rps
        })
      rows.push({
        ...base,
        measure: `replica reads, ${endpoint.measure}, throughput ratio (host, both servers and autocannon on 2 cores: no capacity added; shows routing's cost)`,
        system: "host + 1 replica ÷ host, primary only",
        unit: "×",
        runs: m.withReplica.rps.map((x, k) => x / m.primaryOnly.rps[k])
      })
      for (const key of ["primaryOnly", "withReplica"])
        rows.push({ ...base, measure: `replica reads, ${endpoint.measure}, p99 latency`, system: label[key], unit: "ms", runs: m[key].p99 })
      rows.push({
        ...base,
        measure: `replica reads, ${endpoint.measure}, share served by the replica (/readyz ÷ 2xx; up to +${connections} cut-off reads)${served ? "" : ": not served by this build"}`,
        system: label.withReplica,
        unit: "%",
        runs: m.withReplica.share
      })
      for (const key of ["primaryOnly", "withReplica"])
        for (const server of ["primary", "replica"]) {
          if (key === "primaryOnly" && server === "replica") continue
          rows.push({
            ...base,
            measure: `replica reads, ${endpoint.measure}, transactions per read on the ${server}`,
            system: label[key],
            unit: "xact/read",
            runs: m[key].xacts[server]
          })
        }
      for (const key of ["primaryOnly", "withReplica"])
        for (const part of ["host", "primary", "replica"]) {
          if (key === "primaryOnly" && part === "replica") continue
          rows.push({
            ...base,
            measure: `replica reads, ${endpoint.measure}, CPU per read, ${part === "host" ? "host process" : `${part}'s processes`}`,
            system: label[key],
            unit: "ms",
            runs: m[key].cpu[part]
          })
        }
      // A replica that served nothing while the host lists it routes no read: the feature is broken, not slow.
      if (served && median(m.withReplica.share) === 0) failures.push(`${endpoint.measure}: the replica /readyz lists served no read`)
    }
    const notes = [
      "Replica reads (issue 30): one PostgreSQL 15 primary and an asynchronous streaming standby (bench/lib/pgPair.mjs, as above, " +
        "caught up before the runs); two hosts, each its own process: one given `DATABASE_URL=postgres://postgres@127.0.0.1:P1/db` only, " +
        "the other the same plus `DEALSTREAM_READ_URLS=postgres://postgres@127.0.0.1:P2/db` (the standby). Contract: with it set, GET " +
        "requests are served from a replica that has replayed what the request must see, and `/readyz` answers " +
        "`{ status, primary, replicas: [{ server, lag_ms, replayed, served }] }`, `served` counting the reads the replica served. " +
        (served
          ? "This build serves it."
          : "This build does not serve it yet (/readyz lists no replicas): the host with the variable reads from the primary as the other does, and the share rows are empty."),
      `Load: autocannon (own process), ${connections} connections, ${seconds} s per figure and run (after ${warmupSeconds} s of warm-up each), ` +
        `GET one contact and the HTTP scenario's list page (\`GET ${decodeURIComponent(LIST_PATH)}\`) over ${contacts.toLocaleString("en-US")} contacts ` +
        "of 6 sources seeded through the first host; the two hosts one after the other, each figure its own autocannon process. " +
        "Reads of a window: autocannon's 2xx answers. Share: reads /readyz counts as served by the replica over the window ÷ those answers; it can " +
        `pass 100% by up to ${connections} reads (autocannon stops with a request in flight on each connection, which the host may still serve and count). ` +
        "CPU per read: user + system seconds of the host process and of each server's postmaster and its processes (/proc, lib/cpuTime.mjs) " +
        "over the window ÷ reads. Transactions per read: each server's `xact_commit + xact_rollback` of pg_stat_database for db over each window " +
        `of the last run, between snapshots taken ${statsSettleSeconds} s after the load stopped (a PostgreSQL 15 backend that goes idle within a ` +
        "second of its last statistics flush flushes again only 10 s later), ÷ reads: one figure per endpoint and host, the hosts' own " +
        "background work (workers, listeners) included.",
      "On this 2-core machine both servers, the host and autocannon share the same cores: a replica cannot add throughput here, and the " +
        "throughput ratio shows what routing reads to it costs, not what it gains. What it would gain on separate machines follows from the " +
        "CPU per read on each server (bench/ANALYSIS.md, issue 30).",
      `Read after write: ${probes} contacts created through the host with the replica, each read back at once through it: every read must answer 200.`
    ]
    return { rows, notes, failures }
  } finally {
    await Promise.all(hosts.map((host) => host.stop()))
    await pair.stop()
  }
}

export const scaleOut = async ({ settings, runs, log }) => {
  const unavailable = pairUnavailable()
  if (unavailable !== null) {
    log(`scaleout: SKIPPED: ${unavailable}; the scenario needs PostgreSQL 15 in /usr/lib/postgresql/15/bin and root`)
    return { rows: [], notes: [`Skipped: ${unavailable}.`], failures: [] }
  }
  const template = await makeTemplate()
  try {
    log("  failover gap")
    const gap = await failover({ template, settings, runs, log })
    log("  replica reads")
    const reads = await replicaReads({ template, settings, runs, log })
    return { rows: [...gap.rows, ...reads.rows], notes: [...gap.notes, ...reads.notes], failures: [...gap.failures, ...reads.failures] }
  } finally {
    template.remove()
  }
}
