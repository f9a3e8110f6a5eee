// Item 6: webhook deliveries from the host (its own process, PostgreSQL storage) to a node:http
// receiver in this process: the rate at which a backlog is delivered, and commit-to-receipt latency.
import { createServer } from "node:http"
import { availableParallelism } from "node:os"
import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import postgres from "postgres"
import { cpuWindow, postmasterOf } from "../lib/cpuTime.mjs"
import { forEachConcurrently, openLoop, runTag } from "../lib/loop.mjs"
import { request, startHost, WORKSPACE } from "../lib/processes.mjs"
import { quantile } from "../lib/stats.mjs"
import { contactFields } from "../lib/systems/shared.mjs"

const SCENARIO = "webhooks"
const WAIT_LIMIT_MS = 120_000

/** Records when each contact's `contact.created` delivery arrived, and what it said. */
const startReceiver = async () => {
  const arrivals = new Map()
  /** Receipts of an id already received, and the payloads' sequences in order of receipt. */
  const counts = { duplicates: 0, sequences: [] }
  let waiter = null
  const server = createServer((req, res) => {
    const chunks = []
    req.on("data", (chunk) => chunks.push(chunk))
    req.on("end", () => {
      const at = Date.now()
      res.writeHead(200).end()
      const payload = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      const id = payload.data?.contact?.id
      if (id !== undefined && arrivals.has(id)) counts.duplicates++
      if (id !== undefined && !arrivals.has(id)) arrivals.set(id, { at, createdAt: Date.parse(payload.created_at) })
      counts.sequences.push(payload.sequence)
      // The ids still missing, one check per arrival: a wait for 100,000 must not scan them all each time.
      if (waiter !== null && id !== undefined && waiter.missing.delete(id) && waiter.missing.size === 0) {
        waiter.resolve()
        waiter = null
      }
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    arrivals,
    counts,
    /** Resolves once every id has arrived; rejects after `limitMs`. */
    waitFor: (ids, limitMs = WAIT_LIMIT_MS) =>
      new Promise((resolve, reject) => {
        if (ids.every((id) => arrivals.has(id))) return resolve()
        const timer = setTimeout(
          () =>
            reject(
              new Error(`${ids.filter((id) => !arrivals.has(id)).length} of ${ids.length} deliveries missing after ${limitMs / 1000} s`)
            ),
          limitMs
        )
        waiter = { missing: new Set(ids.filter((id) => !arrivals.has(id))), resolve: () => (clearTimeout(timer), resolve()) }
      }),
    close: () => new Promise((resolve) => server.close(resolve))
  }
}

const insecure = { env: { DEALSTREAM_ALLOW_INSECURE_WEBHOOKS: "1" } }
const TUNED = ["--webhook-endpoint-concurrency", "64", "--webhook-concurrency", "256"]

/** The rows of a phase's CPU (see phaseCpu), where /proc gave it. */
const cpuRows = (phase, cpu) =>
  cpu.busy.includes(null)
    ? []
    : [
        { scenario: SCENARIO, measure: `host CPU per contact ${phase}`, system: "dealstream", unit: "ms", runs: cpu.host },
        { scenario: SCENARIO, measure: `PostgreSQL CPU per contact ${phase}`, system: "dealstream", unit: "ms", runs: cpu.pg },
        { scenario: SCENARIO, measure: `cores busy ${phase} (host, PostgreSQL, bench)`, system: "dealstream", unit: "%", runs: cpu.busy }
      ]

export const webhooks = async ({ pg, settings, runs, log }) => {
  const { latencyContacts, loadedContacts, throughputContacts, recoveryEvents, concurrency } = settings
  const url = await pg.createDatabase("bench_webhooks")
  const receiver = await startReceiver()
  let host = await startHost({ databaseUrl: url, ...insecure })
  const hook = (
    await request(host.url, "POST", "/v1/webhooks", {
      url: receiver.url,
      events: ["contact.created"],
      secret: "whsec_YmVuY2gtc2VjcmV0LWZvci10aGUtd2ViaG9va3M="
    })
  ).json()
  let n = 0
  const post = async () => {
    const answer = await request(host.url, "POST", "/v1/contacts", contactFields(runTag, n++))
    return { id: answer.json().id, answeredAt: Date.now() }
  }
  // Warm-up: the host's code paths, the receiver, the worker's connection.
  const warm = []
  for (let i = 0; i < 20; i++) warm.push((await post()).id)
  await receiver.waitFor(warm)

  const sql = postgres(url, { max: 1, onnotice: () => {} })
  const postmasterPid = await postmasterOf(sql)
  await sql.end()
  /**
   * CPU of a phase per contact (host, PostgreSQL), and how busy the machine's cores were (host,
   * PostgreSQL and this process, which POSTs and receives): where a phase's latency comes from.
   */
  const phaseCpu = () => {
    const spent = cpuWindow(host.pid, postmasterPid)
    const started = performance.now()
    return (contacts, into) => {
      const { server, pg, bench } = spent()
      const seconds = (performance.now() - started) / 1000
      into.host.push(server === null ? null : (server * 1000) / contacts)
      into.pg.push(pg === null ? null : (pg * 1000) / contacts)
      into.busy.push(server === null || pg === null ? null : (100 * (server + pg + bench)) / (seconds * availableParallelism()))
    }
  }
  const engine = await createPromiseEngine(PgStorage.layer(url))
  const ctx = { workspaceId: WORKSPACE, requestId: null, actor: "bench" }
  const figures = {
    p50: [],
    p99: [],
    afterAnswerP50: [],
    loadedP50: [],
    loadedP99: [],
    loadedRate: [],
    halfP50: [],
    halfP99: [],
    halfRate: [],
    loadedCpu: { host: [], pg: [], busy: [] },
    halfCpu: { host: [], pg: [], busy: [] },
    rate: [],
    drainSeconds: [],
    tunedRate: [],
    tunedSeconds: [],
    twoHostRate: [],
    twoHostSeconds: [],
    recoveryRate: [],
    recoverySeconds: []
  }
  const recovery = { duplicates: 0, missing: 0, inversions: 0, scheduled: 0, skipped: 0 }
  /** Commits `count` contacts with no host running (the outbox schedules, nobody sends); their ids. */
  const backlogOf = async (count) => {
    const ids = []
    await forEachConcurrently(count, concurrency, async () => {
      ids.push((await engine.contacts.create(ctx, contactFields(runTag, n++))).data.id)
    })
    return ids
  }
  const drainRate = (ids) => {
    const times = ids.map((id) => receiver.arrivals.get(id).at)
    const seconds = (Math.max(...times) - Math.min(...times)) / 1000
    return { rate: (ids.length - 1) / seconds, seconds }
  }
  try {
    for (let run = 0; run < runs; run++) {
      // Latency: one contact at a time through the host; receipt time minus the event's created_at.
      const sent = []
      for (let i = 0; i < latencyContacts; i++) sent.push(await post())
      await receiver.waitFor(sent.map((s) => s.id))
      const latency = sent.map((s) => receiver.arrivals.get(s.id).at - receiver.arrivals.get(s.id).createdAt)
      figures.p50.push(quantile(latency, 0.5))
      figures.p99.push(quantile(latency, 0.99))
      figures.afterAnswerP50.push(
        quantile(
          sent.map((s) => receiver.arrivals.get(s.id).at - s.answeredAt),
          0.5
        )
      )

      // Latency under load: `concurrency` writers POST contacts through the host as fast as it
      // answers, while its worker delivers them; receipt time minus each event's created_at.
      const loaded = []
      const loadStarted = Date.now()
      const loadedSpent = phaseCpu()
      await forEachConcurrently(loadedContacts, concurrency, async () => {
        loaded.push((await post()).id)
      })
      figures.loadedRate.push(loadedContacts / ((Date.now() - loadStarted) / 1000))
      await receiver.waitFor(loaded)
      loadedSpent(loadedContacts, figures.loadedCpu)
      const loadedLatency = loaded.map((id) => receiver.arrivals.get(id).at - receiver.arrivals.get(id).createdAt)
      figures.loadedP50.push(quantile(loadedLatency, 0.5))
      figures.loadedP99.push(quantile(loadedLatency, 0.99))

      // At half load: the same number of contacts, POSTed at half the rate the writers above
      // reached, each on its own schedule (an open loop), so the latency is the system's at that
      // rate and not the queue that a saturating client builds in front of it.
      const half = []
      const halfSpent = phaseCpu()
      const paced = await openLoop(loadedContacts, figures.loadedRate[run] / 2, async () => {
        half.push((await post()).id)
      })
      figures.halfRate.push(paced.startedPerSecond)
      await receiver.waitFor(half)
      halfSpent(loadedContacts, figures.halfCpu)
      const halfLatency = half.map((id) => receiver.arrivals.get(id).at - receiver.arrivals.get(id).createdAt)
      figures.halfP50.push(quantile(halfLatency, 0.5))
      figures.halfP99.push(quantile(halfLatency, 0.99))

      // Throughput: with the host stopped, the engine in this process commits contacts, so their
      // deliveries are scheduled (the outbox) but nobody sends them; then a host starts and its
      // worker delivers the backlog. Rate = deliveries / (last receipt − first receipt).
      await host.stop()
      const backlog = await backlogOf(throughputContacts)
      host = await startHost({ databaseUrl: url, ...insecure })
      await receiver.waitFor(backlog)
      const one = drainRate(backlog)
      figures.rate.push(one.rate)
      figures.drainSeconds.push(one.seconds)

      // The same with the host's in-flight limits raised, as an operator would for a receiver that
      // takes it: one webhook's drain is bounded by its cap × a request's round trip.
      await host.stop()
      const tunedBacklog = await backlogOf(throughputContacts)
      host = await startHost({ databaseUrl: url, ...insecure, extraArgs: TUNED })
      await receiver.waitFor(tunedBacklog)
      const tuned = drainRate(tunedBacklog)
      figures.tunedRate.push(tuned.rate)
      figures.tunedSeconds.push(tuned.seconds)

      // The same with two hosts on the database, started together: they share the backlog.
      await host.stop()
      const shared = await backlogOf(throughputContacts)
      const [first, second] = await Promise.all([
        startHost({ databaseUrl: url, ...insecure }),
        startHost({ databaseUrl: url, ...insecure })
      ])
      host = first
      await receiver.waitFor(shared)
      await second.stop()
      const two = drainRate(shared)
      figures.twoHostRate.push(two.rate)
      figures.twoHostSeconds.push(two.seconds)
      log(
        `  run ${run + 1}/${runs}: commit-to-receipt p50 ${figures.p50[run].toFixed(1)} ms, p99 ${figures.p99[run].toFixed(1)} ms; ` +
          `under ${concurrency} writers (${Math.round(figures.loadedRate[run])} contacts/s) p50 ${figures.loadedP50[run].toFixed(1)} ms, p99 ${figures.loadedP99[run].toFixed(1)} ms; ` +
          `at half that (${Math.round(figures.halfRate[run])}/s) p50 ${figures.halfP50[run].toFixed(1)} ms, p99 ${figures.halfP99[run].toFixed(1)} ms; ` +
          `backlog of ${backlog.length} delivered at ${Math.round(one.rate)}/s by one host (${Math.round(tuned.rate)}/s with ${TUNED.join(" ")}), ${Math.round(two.rate)}/s by two`
      )
    }

    // Recovery: the webhook stops listening to contacts; the engine commits a backlog nobody is
    // subscribed to; a second webhook, registered afterwards, recovers it from a host. Rate =
    // events / (job's answer − last receipt); order = receipts whose sequence is below one before.
    await request(host.url, "PATCH", `/v1/webhooks/${hook.id}`, { events: ["deal.created"] })
    await host.stop()
    const since = new Date(Date.now() - 1000).toISOString()
    const missed = await backlogOf(recoveryEvents)
    host = await startHost({ databaseUrl: url, ...insecure })
    const recovering = (await request(host.url, "POST", "/v1/webhooks", { url: receiver.url, events: ["contact.created"] })).json()
    const before = { duplicates: receiver.counts.duplicates, sequences: receiver.counts.sequences.length }
    const started = Date.now()
    const job = (await request(host.url, "POST", `/v1/webhooks/${recovering.id}/recover`, { since }, [202])).json()
    // At a few hundred a second, 100,000 take minutes: the limit grows with the count.
    await receiver.waitFor(missed, Math.max(WAIT_LIMIT_MS, missed.length * 10))
    const seconds = (Math.max(...missed.map((id) => receiver.arrivals.get(id).at)) - started) / 1000
    figures.recoveryRate.push(missed.length / seconds)
    figures.recoverySeconds.push(seconds)
    let finished = job
    while (finished.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 100))
      finished = (await request(host.url, "GET", `/v1/webhooks/${recovering.id}/recoveries/${job.id}`)).json()
    }
    const sequences = receiver.counts.sequences.slice(before.sequences)
    let highest = -Infinity
    for (const sequence of sequences) {
      if (sequence < highest) recovery.inversions++
      highest = Math.max(highest, sequence)
    }
    recovery.duplicates = receiver.counts.duplicates - before.duplicates
    recovery.missing = missed.filter((id) => !receiver.arrivals.has(id)).length
    recovery.scheduled = finished.scheduled
    recovery.skipped = finished.skipped
    log(
      `  recovery of ${missed.length} events: ${seconds.toFixed(1)} s (${Math.round(missed.length / seconds)}/s), job ${finished.status}, ` +
        `scheduled ${finished.scheduled}, skipped ${finished.skipped}; ${recovery.duplicates} sent twice, ${recovery.missing} missing, ` +
        `${recovery.inversions} received after a later sequence`
    )
  } finally {
    await engine.dispose()
    await host.stop()
    await receiver.close()
  }

  return {
    rows: [
      {
        scenario: SCENARIO,
        measure: "deliveries per second (backlog drain), one host, default limits",
        system: "dealstream",
        unit: "deliveries/s",
        runs: figures.rate
      },
      {
        scenario: SCENARIO,
        measure: "deliveries per second (backlog drain), one host, 64 per endpoint, 256 in flight",
        system: "dealstream",
        unit: "deliveries/s",
        runs: figures.tunedRate,
        target: { text: "≥ 2,000/s", on: "value", atLeast: 2000 }
      },
      {
        scenario: SCENARIO,
        measure: "deliveries per second (backlog drain), two hosts, default limits",
        system: "dealstream",
        unit: "deliveries/s",
        runs: figures.twoHostRate
      },
      {
        scenario: SCENARIO,
        measure: "commit-to-receipt latency at half the writers' rate, p50",
        system: "dealstream",
        unit: "ms",
        runs: figures.halfP50,
        target: { text: "p50 < 10 ms", on: "value", atMost: 10 }
      },
      {
        scenario: SCENARIO,
        measure: "commit-to-receipt latency at half the writers' rate, p99",
        system: "dealstream",
        unit: "ms",
        runs: figures.halfP99,
        target: { text: "p99 < 25 ms", on: "value", atMost: 25 }
      },
      {
        scenario: SCENARIO,
        measure: "contacts/s POSTed at half the writers' rate (open loop)",
        system: "dealstream",
        unit: "req/s",
        runs: figures.halfRate
      },
      ...cpuRows("at half the writers' rate", figures.halfCpu),
      {
        scenario: SCENARIO,
        measure: `commit-to-receipt latency under ${concurrency} writers, p50`,
        system: "dealstream",
        unit: "ms",
        runs: figures.loadedP50
      },
      {
        scenario: SCENARIO,
        measure: `commit-to-receipt latency under ${concurrency} writers, p99`,
        system: "dealstream",
        unit: "ms",
        runs: figures.loadedP99
      },
      {
        scenario: SCENARIO,
        measure: `contacts/s POSTed by the ${concurrency} writers`,
        system: "dealstream",
        unit: "req/s",
        runs: figures.loadedRate
      },
      ...cpuRows(`under ${concurrency} writers`, figures.loadedCpu),
      { scenario: SCENARIO, measure: "commit-to-receipt latency one at a time, p50", system: "dealstream", unit: "ms", runs: figures.p50 },
      { scenario: SCENARIO, measure: "commit-to-receipt latency one at a time, p99", system: "dealstream", unit: "ms", runs: figures.p99 },
      { scenario: SCENARIO, measure: "receipt after the 201 answer, p50", system: "dealstream", unit: "ms", runs: figures.afterAnswerP50 },
      {
        scenario: SCENARIO,
        measure: `recovery of ${recoveryEvents.toLocaleString("en-US")} events, request to last receipt`,
        system: "dealstream",
        unit: "events/s",
        runs: figures.recoveryRate
      }
    ],
    notes: [
      "The host runs with `DEALSTREAM_ALLOW_INSECURE_WEBHOOKS=1` on a fresh database; one webhook (`contact.created`, with a secret, so every delivery is signed) " +
        "points at a node:http receiver in the bench process on 127.0.0.1 that answers 200 at once. The host's own delivery worker (defaults) sends.",
      `Latency: ${latencyContacts} contacts per run POSTed one after another; latency = receipt time (receiver, end of body) − the payload's \`created_at\` ` +
        "(the event time the engine sets just before its commit; same machine clock, millisecond resolution). It includes the commit itself, so it bounds commit-to-receipt from above. " +
        "The last row is receipt − the moment the POST's 201 reached the client (negative: the delivery arrived before the HTTP answer).",
      `Throughput: per run, the host is stopped, the engine in the bench process commits ${throughputContacts.toLocaleString("en-US")} contacts (concurrency ${concurrency}), ` +
        "which schedules their deliveries in the same commits; a new host then starts and its worker delivers the backlog. " +
        `Rate = (deliveries − 1) / (last receipt − first receipt); a run took ${figures.drainSeconds.map((s) => s.toFixed(1)).join(", ")} s with one host, ` +
        `${figures.tunedSeconds.map((s) => s.toFixed(1)).join(", ")} s with one host started with \`${TUNED.join(" ")}\` (the defaults, 8 per endpoint and 64 in flight, bound one webhook's drain at 8 requests at a time), ` +
        `${figures.twoHostSeconds.map((s) => s.toFixed(1)).join(", ")} s with two (both started together on the database, a backlog of the same size; the machine's 2 cores serve both hosts, the database and the receiver).`,
      `Under load: ${loadedContacts.toLocaleString("en-US")} contacts per run POSTed through the host by ${concurrency} concurrent writers while its worker delivers them; ` +
        "latency as above, over every one of them. It saturates the host, so it measures the queue in front of it more than the delivery path.",
      `At half load (issue 32's targets): then ${loadedContacts.toLocaleString("en-US")} more, each POST started on a fixed schedule at half the rate the ${concurrency} writers reached ` +
        "(an open loop: a slow answer does not delay the next request), latency as above.",
      "CPU of the two loaded phases, from the first POST to the last receipt (/proc, lib/cpuTime.mjs): the host's and PostgreSQL's per contact, " +
        `and the share of the machine's ${availableParallelism()} cores that the host, PostgreSQL and the bench process (the writers and the receiver) kept busy.`,
      `Recovery: the host stopped, the engine in the bench process commits ${recoveryEvents.toLocaleString("en-US")} contacts that no webhook subscribes to; ` +
        "a host starts, a second webhook is registered to the receiver and POST …/recover {since} is sent; rate = events / (last receipt − the request). " +
        `It took ${figures.recoverySeconds.map((s) => s.toFixed(1)).join(", ")} s; the job scheduled ${recovery.scheduled} and skipped ${recovery.skipped}; ` +
        `${recovery.duplicates} sent twice, ${recovery.missing} missing; ${recovery.inversions} received after an event of a later sequence ` +
        "(deliveries are claimed in sequence order and sent 8 at a time to one endpoint, so arrivals interleave within a batch)."
    ],
    failures: [
      ...(recovery.duplicates > 0 ? [`recovery sent ${recovery.duplicates} events twice`] : []),
      ...(recovery.missing > 0 ? [`recovery lost ${recovery.missing} events`] : [])
    ]
  }
}
