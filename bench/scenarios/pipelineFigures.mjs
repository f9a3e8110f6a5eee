// Issue 27, item 6: the pipeline figures (summary, conversion, forecast) through the host on
// PostgreSQL, over one workspace whose Sales pipeline holds 200,000 deals and 1,000,000 stage
// changes (quick and smoke: fewer), seeded by bench/lib/seedDealHistory.mjs with core's own decider
// and documents, checked through the host before measuring. Every figure but `as_of` must answer
// with a p99 under 50 ms; `as_of` folds the workspace's deal history and says what that costs.
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { pipelineInfo } from "../lib/engineShapes.mjs"
import { request, startHost, WORKSPACE } from "../lib/processes.mjs"
import { replayer } from "../lib/replay.mjs"
import { dealStream, MOVES_PER_DEAL, OWNERS, seedDealHistory } from "../lib/seedDealHistory.mjs"
import { quantile } from "../lib/stats.mjs"

const SCENARIO = "pipeline figures (PostgreSQL)"
const DAY = 86_400_000
const TARGET = { text: "p99 < 50 ms at 200k deals, 1M stage changes (issue 27)", on: "value", atMost: 50 }

/** The seed's sizes, its code (here and seedDealHistory.mjs) and core's deal code (whose aggregate makes the documents). */
const seedFingerprint = (deals) => {
  const hash = createHash("sha256").update(String(deals))
  const dealDist = fileURLToPath(new URL("../../packages/core/dist/deal/", import.meta.url))
  const files = [fileURLToPath(import.meta.url), fileURLToPath(new URL("../lib/seedDealHistory.mjs", import.meta.url))]
  for (const name of readdirSync(dealDist).sort()) if (name.endsWith(".js")) files.push(join(dealDist, name))
  for (const file of files) hash.update(readFileSync(file))
  return hash.digest("hex")
}

const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10)
const q = (params) => new URLSearchParams(params).toString()

/** Sequential requests over one keep-alive connection; per-request latency in ms. */
const latencies = async (base, paths, requests, maxSeconds) => {
  const out = []
  const until = performance.now() + maxSeconds * 1000
  for (let i = 0; i < requests && performance.now() < until; i++) {
    const t0 = performance.now()
    await request(base, "GET", paths(i))
    out.push(performance.now() - t0)
  }
  return out
}

/** Before measuring: sampled streams are what core's decider records, and the host's figures add up to the seed. */
const verify = async ({ base, pipeline, deals, seeded }) => {
  const check = (ok, what) => {
    if (!ok) throw new Error(`seeded data check failed: ${what}`)
  }
  const replay = replayer(pipeline)
  for (let n = 0; n < 50; n++) {
    const i = Math.floor((n * deals) / 50)
    const { id, events } = dealStream(i, { pipeline, startMs: seeded.startMs, deals, workspaceId: WORKSPACE })
    for (const event of events) replay(id, event)
    const shown = (await request(base, "GET", `/v1/deals/${id}`)).json()
    const last = events.at(-1).data
    check(shown.stage_id === last.to_stage_id && shown.stage_entered_at === last.at, `deal ${id} as the host shows it`)
  }
  const summary = (await request(base, "GET", `/v1/pipelines/${pipeline.id}/summary`)).json()
  const counted = summary.stages.reduce((n, stage) => n + stage.count, 0)
  check(counted === deals, `the summary counts ${counted} deals, ${deals} were seeded`)
  const all = (
    await request(base, "GET", `/v1/pipelines/${pipeline.id}/conversion?${q({ from: dayOf(seeded.startMs), to: dayOf(Date.now() + DAY) })}`)
  ).json()
  check(all.stages[0].entered === deals, `conversion: ${all.stages[0].entered} deals entered the first stage, ${deals} were created in it`)
  check(all.won + all.lost > 0 && all.stages[0].median_days !== null, "conversion: won and lost deals, days in stage")
}

export const pipelineFigures = async ({ pg, settings, runs, log, quick }) => {
  const { deals, requests, asOfRequests, maxSeconds } = settings
  // The seed is what the sizes and the code making it decide (--keep-data reuses it; the host
  // migrates a reused one as it starts). The engine makes the schema and the workspace's pipeline.
  const { url, seeded, reused } = await pg.seededDatabase("bench_figures", seedFingerprint(deals), async (url) => {
    const crm = await createPromiseEngine(PgStorage.layer(url))
    const pipeline = pipelineInfo((await crm.pipelines.list({ workspaceId: WORKSPACE, requestId: null, actor: "bench" })).data[0])
    await crm.dispose()
    return { ...(await seedDealHistory({ url, workspaceId: WORKSPACE, pipeline, deals, log })), pipeline }
  })
  const { pipeline } = seeded
  const host = await startHost({ databaseUrl: url })
  try {
    await verify({ base: host.url, pipeline, deals, seeded })
    log(
      `  seeded ${deals.toLocaleString("en-US")} deals and ${(seeded.events - deals).toLocaleString("en-US")} stage changes in ${seeded.seconds.toFixed(0)} s; host checks pass`
    )
    const span = seeded.endMs - seeded.startMs
    /** A window of `days` starting on a day that moves with `i` through the seeded history. */
    const window = (i, days) => {
      const from = seeded.startMs + ((i * 7_919) % Math.max(1, Math.floor(span / DAY) - days)) * DAY
      return { from: dayOf(from), to: dayOf(from + days * DAY) }
    }
    const owner = (i) => OWNERS[i % OWNERS.length]
    const base = `/v1/pipelines/${pipeline.id}`
    const figures = [
      { measure: "summary, whole pipeline", path: () => `${base}/summary`, target: TARGET },
      { measure: "summary, one owner", path: (i) => `${base}/summary?${q({ owner_id: owner(i) })}`, target: TARGET },
      { measure: "conversion, 30-day window", path: (i) => `${base}/conversion?${q(window(i, 30))}`, target: TARGET },
      { measure: "conversion, 90-day window", path: (i) => `${base}/conversion?${q(window(i, 90))}`, target: TARGET },
      {
        measure: "conversion, 90-day window, one owner",
        path: (i) => `${base}/conversion?${q({ ...window(i, 90), owner_id: owner(i) })}`,
        target: TARGET
      },
      {
        measure: "forecast, 12 months by month, the pipeline",
        path: (i) => `/v1/deals/forecast?${q({ pipeline_id: pipeline.id, ...window(i, 365) })}`,
        target: TARGET
      },
      {
        measure: "forecast, 2 years by quarter, all pipelines",
        path: (i) => `/v1/deals/forecast?${q({ interval: "quarter", ...window(i, 730) })}`,
        target: TARGET
      },
      {
        measure: "summary as_of (folds the deal history)",
        path: (i) => `${base}/summary?${q({ as_of: new Date(seeded.startMs + ((i * 7_919 * DAY) % span)).toISOString() })}`,
        count: asOfRequests
      }
    ]
    for (const figure of figures) {
      await latencies(host.url, figure.path, figure.count === undefined ? 5 : 1, maxSeconds)
      Object.assign(figure, { p50: [], p99: [], counts: [] })
    }
    for (let run = 0; run < runs; run++) {
      for (const figure of figures) {
        const sample = await latencies(host.url, (i) => figure.path(i + run * requests), figure.count ?? requests, maxSeconds)
        figure.p50.push(quantile(sample, 0.5))
        figure.p99.push(quantile(sample, 0.99))
        figure.counts.push(sample.length)
      }
      log(
        `  run ${run + 1}/${runs}: ${figures.map((f) => `${f.measure} p50 ${f.p50[run].toFixed(1)} / p99 ${f.p99[run].toFixed(1)} ms`).join("; ")}`
      )
    }
    const scale = `${deals.toLocaleString("en-US")} deals, ${(seeded.events - deals).toLocaleString("en-US")} stage changes`
    const rows = figures.flatMap((figure) => [
      { scenario: SCENARIO, measure: `${figure.measure}, p50`, system: "dealstream", unit: "ms", runs: figure.p50 },
      {
        scenario: SCENARIO,
        measure: `${figure.measure}, p99`,
        system: "dealstream",
        unit: "ms",
        runs: figure.p99,
        ...(figure.target === undefined
          ? {}
          : { target: quick ? { ...figure.target, text: `${figure.target.text} (here ${scale})` } : figure.target })
      }
    ])
    const short = figures.filter((f) => f.counts.some((n) => n < (f.count ?? requests)))
    return {
      rows,
      notes: [
        `Scale: ${scale}${quick ? " (**quick mode: fewer than the target's 200k deals**)" : ""}, one workspace, all in its Sales pipeline (Won and Lost close), ` +
          `created over two years, ${MOVES_PER_DEAL} moves a deal on average (some won, some lost, some lost and reopened, some open), 20 owners, 3 currencies; ` +
          `seeded in ${seeded.seconds.toFixed(0)} s${reused ? " (by an earlier run, reused: --keep-data)" : ""} by bench/lib/seedDealHistory.mjs: every event decided by core's deal decider, every document (deal, timeline ` +
          "entries, standing, stage changes) made by core's deal aggregate, written in batches of 1,000 deals; then VACUUM ANALYZE. Checked before measuring: 50 " +
          "sampled streams replayed through core's decider and read back through the host, the summary counting every deal, conversion over the whole span " +
          "seeing every creation.",
        `Latency: the host (own process, PostgreSQL) answering one request at a time over keep-alive, ${requests} requests per figure and run (as_of: ` +
          `${asOfRequests}), at most ${maxSeconds} s; windows and owners vary from request to request. p50/p99 of each run; the table gives their median, min and max.`,
        "summary as_of has no target: it folds the workspace's deal events up to the instant (docs/analytics.md), so it costs what that history does.",
        ...(short.length > 0
          ? [`Cut short by the ${maxSeconds} s limit: ${short.map((f) => `${f.measure} (${f.counts.join(", ")} requests)`).join("; ")}.`]
          : [])
      ],
      failures: []
    }
  } finally {
    await host.stop()
  }
}
