// Item 3: the engine in this process on memory storage: commands and reads per second, and the
// resident memory 100k contacts take (measured in child processes, so nothing else is resident).
// Issue 13: move-stage against create-contact, a list page over 100k contacts, and move-stage on a
// deal with a long history against a fresh deal.
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { createPromiseEngine } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { dealHistory, dealHistoryNote, dealHistoryRows } from "../lib/dealHistory.mjs"
import { closedLoop, forEachConcurrently, runTag } from "../lib/loop.mjs"
import { ratios } from "../lib/stats.mjs"
import { contactFields, dealFields, nextStage, workspaceId } from "../lib/systems/shared.mjs"

const SCENARIO = "in-process engine (memory storage)"
const SOURCES = ["webinar", "referral", "ads", "organic", "event", "partner"]
const LIST = { filter: JSON.stringify({ source: "webinar" }), sort: "-created_at", limit: "25" }
const ctx = { workspaceId, requestId: null, actor: "bench" }
const MOVE_TARGET = 0.8
const PAGES_TARGET = 2000

const footprint = async (contacts) => {
  const script = fileURLToPath(new URL("../lib/memoryFootprint.mjs", import.meta.url))
  const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", script, String(contacts)], { maxBuffer: 1 << 20 })
  return JSON.parse(stdout)
}

export const inProcess = async ({ settings, runs, log }) => {
  const { seconds, warmupSeconds, footprintContacts, readContacts, listContacts, deals: dealCount, history: historySettings } = settings
  const failures = []
  const measure = async (op) => {
    const result = await closedLoop({ concurrency: 1, seconds, op })
    if (result.failed > 0) failures.push(`${result.failed} failed: ${result.firstError?.message}`)
    return result.rate
  }

  // Commands, on an engine that starts empty.
  const crm = await createPromiseEngine(MemoryStorage.layer)
  const pipeline = (await crm.pipelines.list(ctx)).data[0]
  const stages = pipeline.stages.map((s) => s.id)
  const deals = []
  for (let i = 0; i < dealCount; i++)
    deals.push({ id: (await crm.deals.create(ctx, { ...dealFields(i), pipeline_id: pipeline.id })).data.id, stage: 0 })
  let n = 0
  const create = () => crm.contacts.create(ctx, contactFields(runTag, n++))
  let moves = 0
  const move = () => {
    const deal = deals[moves++ % deals.length]
    deal.stage = nextStage(deal.stage, stages.length)
    return crm.deals.moveStage(ctx, deal.id, { stage_id: stages[deal.stage] }, null)
  }
  await closedLoop({ concurrency: 1, seconds: warmupSeconds, op: create })
  await closedLoop({ concurrency: 1, seconds: warmupSeconds, op: move })

  // Reads, on an engine holding exactly readContacts contacts, so the figure does not depend on how
  // many commands ran before (memory storage filters and sorts a list by scanning the workspace).
  const readerOf = async (contacts) => {
    const engine = await createPromiseEngine(MemoryStorage.layer)
    const ids = []
    await forEachConcurrently(contacts, 1, async (i) => {
      const { data } = await engine.contacts.create(ctx, { ...contactFields(runTag, i), source: SOURCES[i % SOURCES.length] })
      ids.push(data.id)
    })
    return { engine, ids }
  }
  const reader = await readerOf(readContacts)
  const get = (_, i) => reader.engine.contacts.get(ctx, reader.ids[(i * 7919) % reader.ids.length], null)
  const list = () => reader.engine.contacts.list(ctx, LIST)
  // Issue 13's page: the same query over listContacts contacts (100k in both modes).
  const seedStarted = Date.now()
  const large = await readerOf(listContacts)
  const listSeedSeconds = (Date.now() - seedStarted) / 1000
  log(`  ${listContacts.toLocaleString("en-US")} contacts created for the list page in ${listSeedSeconds.toFixed(1)} s`)
  const largeList = () => large.engine.contacts.list(ctx, LIST)
  await closedLoop({ concurrency: 1, seconds: warmupSeconds, op: get })
  await closedLoop({ concurrency: 1, seconds: warmupSeconds, op: list })
  await closedLoop({ concurrency: 1, seconds: warmupSeconds, op: largeList })

  const figures = {
    "create-contact": [],
    "move-stage": [],
    "get contact": [],
    "list page": [],
    "large list page": [],
    footprint: [],
    heap: []
  }
  for (let run = 0; run < runs; run++) {
    figures["create-contact"].push(await measure(create))
    figures["move-stage"].push(await measure(move))
    figures["get contact"].push(await measure(get))
    figures["list page"].push(await measure(list))
    figures["large list page"].push(await measure(largeList))
    const fp = await footprint(footprintContacts)
    figures.footprint.push(((fp.rssBytes / fp.contacts) * 100_000) / 2 ** 20)
    figures.heap.push(((fp.heapBytes / fp.contacts) * 100_000) / 2 ** 20)
    log(
      `  run ${run + 1}/${runs}: ${["create-contact", "move-stage", "get contact", "list page", "large list page"].map((k) => `${k} ${Math.round(figures[k][run])}/s`).join(", ")}, ` +
        `${figures.footprint[run].toFixed(0)} MB RSS per 100k contacts`
    )
  }
  await crm.dispose()
  await reader.engine.dispose()
  await large.engine.dispose()

  // Deal history on an engine of its own, so the figures above are not taken beside its deals.
  log("  move-stage on a deal with a long history:")
  const historian = await createPromiseEngine(MemoryStorage.layer)
  let history
  try {
    const historyPipeline = (await historian.pipelines.list(ctx)).data[0]
    const stageIds = historyPipeline.stages.map((s) => s.id)
    const system = {
      createDeal: async (i) => ({
        id: (await historian.deals.create(ctx, { ...dealFields(i), pipeline_id: historyPipeline.id })).data.id,
        stage: 0
      }),
      moveStage: async (deal) => {
        const to = nextStage(deal.stage, stageIds.length)
        await historian.deals.moveStage(ctx, deal.id, { stage_id: stageIds[to] }, null)
        deal.stage = to
      }
    }
    history = await dealHistory({ system, ...historySettings, seedConcurrency: 1, runs, log })
  } finally {
    await historian.dispose()
  }
  failures.push(...history.failures)

  const row = (measure, unit, runs) => ({ scenario: SCENARIO, measure, system: "dealstream", unit, runs })
  return {
    rows: [
      row("create-contact, concurrency 1", "cmd/s", figures["create-contact"]),
      row("move-stage, concurrency 1", "cmd/s", figures["move-stage"]),
      {
        ...row("move-stage ÷ create-contact, concurrency 1", "×", ratios(figures["move-stage"], figures["create-contact"])),
        target: { text: `move-stage ≥ ${MOVE_TARGET}× create-contact (issue 13)`, on: "value", atLeast: MOVE_TARGET }
      },
      row(`get contact (${readContacts / 1000}k contacts)`, "reads/s", figures["get contact"]),
      row(`list page: filter source, sort -created_at, 25 (${readContacts / 1000}k contacts)`, "reads/s", figures["list page"]),
      {
        ...row(`list page: filter source, sort -created_at, 25 (${listContacts / 1000}k contacts)`, "pages/s", figures["large list page"]),
        target: {
          text: `≥ ${PAGES_TARGET.toLocaleString("en-US")} pages/s at ${listContacts / 1000}k contacts (issue 13)`,
          on: "value",
          atLeast: PAGES_TARGET
        }
      },
      ...dealHistoryRows(SCENARIO, history),
      row("resident memory per 100k contacts (RSS)", "MB", figures.footprint),
      row("JS heap per 100k contacts", "MB", figures.heap)
    ],
    notes: [
      `\`createPromiseEngine(MemoryStorage.layer)\` in the bench process; one caller awaiting one operation after another (concurrency 1: the engine on memory is CPU-bound, ` +
        `more callers only interleave) for ${seconds} s per figure and run, after ${warmupSeconds} s of warm-up each.`,
      `Commands: contacts.create with the commit-path contact; deals.moveStage to the next stage, round robin over ${dealCount} deals (their streams grow during the runs: ` +
        `${(moves / dealCount).toFixed(0)} moves per deal on average by the end).`,
      `Reads on a second engine holding exactly ${readContacts.toLocaleString("en-US")} contacts (6 sources): contacts.get of a contact by id (no expand), and ` +
        `contacts.list(${JSON.stringify(LIST)}). Memory storage answers a list by scanning and sorting the workspace's contacts, so the list figure falls as contacts are added.`,
      `move-stage ÷ create-contact: the two command figures of the same run divided (issue 13's target: ${MOVE_TARGET}×); the moves are those above, on deals whose history grows during the runs.`,
      `List page at ${listContacts.toLocaleString("en-US")} contacts (issue 13's target: ${PAGES_TARGET.toLocaleString("en-US")} pages/s): a third engine holding exactly ${listContacts.toLocaleString("en-US")} contacts ` +
        `(created through the engine in ${listSeedSeconds.toFixed(0)} s, one source in six is "webinar"), one caller asking for the same page, ` +
        `\`contacts.list(ctx, ${JSON.stringify(LIST)})\`: the first 25 of the ${Math.ceil(listContacts / SOURCES.length).toLocaleString("en-US")} webinar contacts, newest first.`,
      `${dealHistoryNote(history)} On a fourth engine of its own, after the figures above.`,
      `Memory: a fresh \`node --expose-gc\` process per run creates ${footprintContacts.toLocaleString("en-US")} contacts after 200 warm-up ones; ` +
        `RSS and heapUsed after forced GC, after minus before, scaled to 100k contacts${footprintContacts === 100_000 ? "" : ` (quick mode measures ${footprintContacts.toLocaleString("en-US")} and scales linearly)`}. ` +
        "Each contact holds its event, its stream and its document (with search words)."
    ],
    failures
  }
}
