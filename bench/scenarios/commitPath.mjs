// Item 2: commands per second on PostgreSQL for dealstream's engine, the raw ceiling, Emmett and
// Emmett with inline documents (issue 32), and dealstream with an inline projection of one row per
// event (issue 29),
// each on a fresh database of the one embedded server, measured round by round side by side; then
// issue 13's move-stage on a deal with a long history against a fresh deal, on a database of its own.
import { dealHistory, dealHistoryNote, dealHistoryRows } from "../lib/dealHistory.mjs"
import { closedLoop, forEachConcurrently, runTag } from "../lib/loop.mjs"
import { migrateDealstream } from "../lib/postgres.mjs"
import { ratios } from "../lib/stats.mjs"
import postgres from "postgres"
import { dealstreamSystem } from "../lib/systems/dealstream.mjs"
import { emmettSystem } from "../lib/systems/emmett.mjs"
import { emmettDocumentsSystem } from "../lib/systems/emmettDocuments.mjs"
import { rawDescription, rawSystem } from "../lib/systems/raw.mjs"

const SCENARIO = "commit path (PostgreSQL)"
const CONCURRENCIES = [1, 8, 32]
const POOL_SIZE = 10

// Issue 13's targets against the raw ceiling; issue 32's against Emmett writing the same documents
// (they replace issue 13's against append-only Emmett, which stays as a lower bound).
const targets = {
  1: { raw: 1.0, emmett: 1.0 },
  8: { raw: 1.0, emmett: 1.0 },
  32: { raw: 1.5, emmett: 1.5 }
}

/** The deals of one system, dealt out so that no two workers ever move the same deal. */
const dealsFor = (deals, concurrency) => Array.from({ length: concurrency }, (_, w) => deals.filter((_, i) => i % concurrency === w))

const averageDealEvents = async (url) => {
  const sql = postgres(url, { max: 1 })
  const [row] = await sql`SELECT avg(version)::float AS avg, max(version) AS max FROM ds_streams WHERE stream_id LIKE 'deal\\_%'`
  await sql.end()
  return row
}

/** The events the seeded long deals' streams hold, as "1,001" or "1,001 to 1,002". */
const streamEventsOf = (url) => async (deals) => {
  const sql = postgres(url, { max: 1 })
  const [row] =
    await sql`SELECT min(version)::int AS min, max(version)::int AS max FROM ds_streams WHERE stream_id = ANY(${deals.map((d) => d.id)})`
  await sql.end()
  const text = (n) => n.toLocaleString("en-US")
  return row.min === row.max ? text(row.min) : `${text(row.min)} to ${text(row.max)}`
}

export const commitPath = async ({ pg, settings, runs, log }) => {
  const { seconds, warmupSeconds, deals: dealCount, history: historySettings } = settings
  const dsUrl = await pg.createDatabase("bench_commit_dealstream")
  const rawUrl = await pg.createDatabase("bench_commit_raw")
  const emmettUrl = await pg.createDatabase("bench_commit_emmett")
  const emmettDocumentsUrl = await pg.createDatabase("bench_commit_emmett_documents")
  const inlineUrl = await pg.createDatabase("bench_commit_dealstream_inline")
  await migrateDealstream(rawUrl)

  const dealstream = await dealstreamSystem(dsUrl, { poolSize: POOL_SIZE })
  const shared = { poolSize: POOL_SIZE, stages: dealstream.stages, pipelineId: dealstream.pipelineId }
  const systems = [dealstream]
  // results[command][concurrency][system] = per-run rates
  const results = {}
  const failures = []
  let dealEvents
  try {
    systems.push(
      await rawSystem(rawUrl, shared),
      await emmettSystem(emmettUrl, shared),
      await emmettDocumentsSystem(emmettDocumentsUrl, shared),
      await dealstreamSystem(inlineUrl, { poolSize: POOL_SIZE, inline: true })
    )

    let n = 0
    const commands = {
      "create-contact": (system) => () => system.createContact(runTag, n++),
      "move-stage": (system, concurrency) => {
        const mine = dealsFor(system.deals, concurrency)
        return (worker, i) => system.moveStage(mine[worker][i % mine[worker].length])
      }
    }

    for (const system of systems) {
      const started = Date.now()
      system.deals = []
      await forEachConcurrently(dealCount, 8, async (i) => system.deals.push(await system.createDeal(i)))
      log(`  ${system.name}: ${dealCount} deals created (${((Date.now() - started) / 1000).toFixed(1)} s)`)
      for (const [name, command] of Object.entries(commands)) {
        const warm = await closedLoop({ concurrency: 8, seconds: warmupSeconds, op: command(system, 8) })
        if (warm.failed > 0) throw new Error(`${system.name} ${name} fails while warming up: ${warm.firstError?.message}`)
      }
    }

    for (let run = 0; run < runs; run++) {
      for (const [name, command] of Object.entries(commands)) {
        for (const concurrency of CONCURRENCIES) {
          // Rotate who goes first, so that no system always runs on the warmest (or most tired) database.
          const order = systems.map((_, i) => systems[(i + run) % systems.length])
          for (const system of order) {
            const result = await closedLoop({ concurrency, seconds, op: command(system, concurrency) })
            if (result.failed > 0)
              failures.push(`${system.name} ${name} c=${concurrency}: ${result.failed} failed (${result.firstError?.message})`)
            results[name] ??= {}
            results[name][concurrency] ??= {}
            results[name][concurrency][system.name] ??= []
            results[name][concurrency][system.name].push(result.rate)
          }
          log(
            `  run ${run + 1}/${runs} ${name} c=${concurrency}: ${systems.map((s) => `${s.name} ${Math.round(results[name][concurrency][s.name][run])}/s`).join(", ")}`
          )
        }
      }
    }
    dealEvents = await averageDealEvents(dsUrl)
  } finally {
    for (const system of systems) await system.close()
  }

  // Issue 13's long history, on a database of its own so that the rounds above ran on the same
  // databases as before and the seeded moves do not weigh on them.
  log("  move-stage on a deal with a long history:")
  const historyUrl = await pg.createDatabase("bench_history_dealstream")
  const historian = await dealstreamSystem(historyUrl, { poolSize: POOL_SIZE })
  let history
  try {
    history = await dealHistory({
      system: historian,
      ...historySettings,
      seedConcurrency: 8,
      runs,
      log,
      inspect: streamEventsOf(historyUrl)
    })
  } finally {
    await historian.close()
  }
  failures.push(...history.failures)

  const rows = []
  for (const [name, byConcurrency] of Object.entries(results)) {
    for (const concurrency of CONCURRENCIES) {
      const measured = byConcurrency[concurrency]
      const ds = measured.dealstream
      const measure = `${name}, concurrency ${concurrency}`
      rows.push({ scenario: SCENARIO, measure, system: "dealstream", unit: "cmd/s", runs: ds })
      const goal = targets[concurrency]
      rows.push({
        scenario: SCENARIO,
        measure,
        system: "raw ceiling",
        unit: "cmd/s",
        runs: measured["raw ceiling"],
        ratio: ratios(ds, measured["raw ceiling"]),
        target: { text: `dealstream ≥ ${goal.raw}× raw (issue 13)`, on: "ratio", atLeast: goal.raw }
      })
      rows.push({
        scenario: SCENARIO,
        measure,
        system: "Emmett + documents",
        unit: "cmd/s",
        runs: measured["Emmett + documents"],
        ratio: ratios(ds, measured["Emmett + documents"]),
        target: { text: `dealstream ≥ ${goal.emmett}× Emmett + documents (issue 32)`, on: "ratio", atLeast: goal.emmett }
      })
      rows.push({
        scenario: SCENARIO,
        measure,
        system: "Emmett",
        unit: "cmd/s",
        runs: measured.Emmett,
        ratio: ratios(ds, measured.Emmett)
      })
      // What one inline projection costs: dealstream's rate over its own with the projection (no target).
      rows.push({
        scenario: SCENARIO,
        measure,
        system: "dealstream + inline projection",
        unit: "cmd/s",
        runs: measured["dealstream + inline projection"],
        ratio: ratios(ds, measured["dealstream + inline projection"])
      })
    }
  }

  rows.push(...dealHistoryRows(SCENARIO, history))

  return {
    rows,
    notes: [
      `Closed loop: at concurrency c, c workers each issue one command after another for ${seconds} s; rate = commands completed / elapsed time. ` +
        `Each system has a pool of ${POOL_SIZE} connections (dealstream: PgStorage maxConnections; raw: postgres.js max; Emmett: its node-postgres pool's default). ` +
        `Warm-up: ${warmupSeconds} s of each command at concurrency 8 before the first run. Each run measures every (command, concurrency) for the four systems back to back, ` +
        `the order rotating from run to run; ratios are per run (dealstream's rate / the other's rate in the same round).`,
      `dealstream: \`createPromiseEngine(PgStorage.layer(url))\` in the bench process; \`contacts.create\` (a contact with email, names, phone, title, source) and ` +
        `\`deals.moveStage\` to the pipeline's next stage: the whole command as an embedder calls it (load the stream, decide, project, the outbox's webhook lookup, ` +
        "the commit, the record it returns). `node bench/run.mjs --profile commit` lists the SQL statements one command issues (pg_stat_statements).",
      ...rawDescription.map((line) => `Raw ceiling, ${line}`),
      "Emmett: `getPostgreSQLEventStore(url).appendToStream(stream, [one event])` with the same event data as dealstream's event; " +
        "moves pass `expectedStreamVersion`. Emmett writes no documents (no projections registered): a lower bound, with no target. " +
        "Emmett + documents: the same appends on a store with two inline `pongoSingleStreamProjection`s, so each append also upserts the contact's or deal's " +
        "Pongo document in its transaction (the deal's stage on a move), as dealstream's commit writes its document; dealstream's also writes search words and a stream version row.",
      "dealstream + inline projection: the same engine with one inline projection registered (`createPromiseEngine(…, { inlineProjections })`), " +
        "writing one row per event of the feed (`INSERT INTO bench_event_rows … VALUES ($1, $2, $3, $4::integer)`: its id, stream, type and version) " +
        "inside the commit; its ratio is dealstream's rate over it, so above 1 is what the projection costs.",
      `move-stage: ${dealCount} deals per system, created before the runs and dealt out so no two workers move the same deal (no conflicts); ` +
        "each move goes to the next stage of the 6-stage pipeline, so every move is a real change. Deal streams grow during the runs (dealstream reads the whole stream per command): " +
        `at the end a dealstream deal stream held ${dealEvents.avg.toFixed(1)} events on average (at most ${dealEvents.max}).`,
      `${dealHistoryNote(history)} dealstream alone, as above (\`createPromiseEngine(PgStorage.layer(url))\`, ${POOL_SIZE} connections), on a fresh database of its own.`
    ],
    failures
  }
}
