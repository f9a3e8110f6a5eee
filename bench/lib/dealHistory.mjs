// Issue 13: move-stage on a deal that already holds 1,000 stage changes against move-stage on a
// fresh deal, side by side in the same rounds, on one engine (PostgreSQL in the commit-path
// scenario, memory in the in-process one). The long deals are seeded through the engine itself
// (1,000 moves each, every one a real change) before anything is timed. Each run then moves every
// long deal `movesPerDeal` times, round robin, and as many fresh deals once each: both figures
// count the same number of commands, and the long deals' history stays in a known range, which a
// timed window would not give (every move adds to the history it measures).
import { countedLoop, forEachConcurrently } from "./loop.mjs"
import { ratios } from "./stats.mjs"

const TARGET = 0.9

/**
 * `system` is `{ createDeal(n) → deal, moveStage(deal) }`, the moves going to the pipeline's next
 * stage; `changes`: the stage changes each long deal is given first (1,000, which the target names,
 * but in smoke runs); `inspect(deals)`, when given, says what storage holds for the seeded deals (for the note).
 * Returns per-run rates of both kinds, the seeding time, and what a run moved.
 */
export const dealHistory = async ({ system, longDeals, movesPerDeal, changes, seedConcurrency, runs, log, inspect }) => {
  const seedStarted = Date.now()
  const long = []
  for (let i = 0; i < longDeals; i++) long.push(await system.createDeal(i))
  await forEachConcurrently(longDeals, seedConcurrency, async (i) => {
    for (let move = 0; move < changes; move++) await system.moveStage(long[i])
  })
  const seedSeconds = (Date.now() - seedStarted) / 1000
  const streamEvents = inspect === undefined ? undefined : await inspect(long)
  const perRun = longDeals * movesPerDeal
  const fresh = []
  const warm = []
  await forEachConcurrently(perRun, seedConcurrency, async (i) => fresh.push(await system.createDeal(longDeals + i)))
  await forEachConcurrently(perRun, seedConcurrency, async (i) => warm.push(await system.createDeal(longDeals + perRun + i)))
  // Warm-up, untimed: the first moves after the seeding ran at a third of the rate on PostgreSQL.
  const warmed = await countedLoop({ count: perRun, op: (_, i) => system.moveStage(warm[i]) })
  if (warmed.failed > 0) throw new Error(`move-stage fails while warming up: ${warmed.firstError?.message}`)
  log(`  ${longDeals} deals given ${changes} stage changes each through the engine in ${seedSeconds.toFixed(1)} s; ${perRun} fresh deals`)

  const kinds = {
    fresh: (_, i) => system.moveStage(fresh[i]),
    long: (_, i) => system.moveStage(long[i % longDeals])
  }
  const rates = { fresh: [], long: [] }
  const failures = []
  for (let run = 0; run < runs; run++) {
    // Rotate which goes first, as the commit path rotates its systems.
    const order = run % 2 === 0 ? ["fresh", "long"] : ["long", "fresh"]
    for (const kind of order) {
      const result = await countedLoop({ count: perRun, op: kinds[kind] })
      if (result.failed > 0) failures.push(`move-stage on a ${kind} deal: ${result.failed} failed (${result.firstError?.message})`)
      rates[kind].push(result.rate)
    }
    log(
      `  run ${run + 1}/${runs} move-stage: fresh deal ${Math.round(rates.fresh[run])}/s, deal with ${changes}+ stage changes ${Math.round(rates.long[run])}/s`
    )
  }
  return { ...rates, failures, seedSeconds, streamEvents, longDeals, movesPerDeal, changes, perRun, runs }
}

/** The three rows of one storage: both rates and their per-run ratio, with issue 13's target. */
export const dealHistoryRows = (scenario, result) => [
  { scenario, measure: "move-stage on a fresh deal, concurrency 1", system: "dealstream", unit: "cmd/s", runs: result.fresh },
  {
    scenario,
    measure: `move-stage on a deal with ${result.changes.toLocaleString("en-US")} earlier stage changes, concurrency 1`,
    system: "dealstream",
    unit: "cmd/s",
    runs: result.long
  },
  {
    scenario,
    measure: `move-stage, ${result.changes.toLocaleString("en-US")}-change deal ÷ fresh deal, concurrency 1`,
    system: "dealstream",
    unit: "×",
    runs: ratios(result.long, result.fresh),
    target: { text: `≥ ${TARGET}× the fresh-deal rate (issue 13)`, on: "value", atLeast: TARGET }
  }
]

/** What RESULTS.md says about how the two figures were taken. */
export const dealHistoryNote = (result) => {
  const count = result.perRun.toLocaleString("en-US")
  return (
    `Deal history (issue 13): ${result.longDeals} deals each given ${result.changes.toLocaleString("en-US")} stage changes through the engine itself ` +
    `(deals.moveStage to the next stage, ${result.seedSeconds.toFixed(0)} s) before anything was timed${result.streamEvents === undefined ? "" : `; their streams then held ${result.streamEvents} events`}. ` +
    `Each run moves them ${result.movesPerDeal} times each, round robin (${count} commands), and moves ${count} fresh deals (created just before the runs) once each, ` +
    `after an untimed warm-up of ${count} moves of other fresh deals; ` +
    "one command after another (concurrency 1), the two back to back and the order alternating from run to run; rate = commands / time for that count. " +
    `So a timed long-deal move finds ${result.changes.toLocaleString("en-US")} to ${(result.changes + result.runs * result.movesPerDeal - 1).toLocaleString("en-US")} earlier stage changes, ` +
    `a fresh-deal move 0 to ${result.runs - 1}. The ratio row is long ÷ fresh per run.`
  )
}
