// Item 3: the engine in this process on memory storage: commands and reads per second, and the
// resident memory 100k contacts take (measured in child processes, so nothing else is resident).
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { createPromiseEngine } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { closedLoop, forEachConcurrently, runTag } from "../lib/loop.mjs"
import { contactFields, dealFields, nextStage, workspaceId } from "../lib/systems/shared.mjs"

const SCENARIO = "in-process engine (memory storage)"
const READ_CONTACTS = 10_000
const DEALS = 512
const SOURCES = ["webinar", "referral", "ads", "organic", "event", "partner"]
const LIST = { filter: JSON.stringify({ source: "webinar" }), sort: "-created_at", limit: "25" }
const ctx = { workspaceId, requestId: null, actor: "bench" }

const footprint = async (contacts) => {
  const script = fileURLToPath(new URL("../lib/memoryFootprint.mjs", import.meta.url))
  const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", script, String(contacts)], { maxBuffer: 1 << 20 })
  return JSON.parse(stdout)
}

export const inProcess = async ({ settings, runs, log }) => {
  const { seconds, warmupSeconds, footprintContacts } = settings
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
  for (let i = 0; i < DEALS; i++) deals.push({ id: (await crm.deals.create(ctx, { ...dealFields(i), pipeline_id: pipeline.id })).data.id, stage: 0 })
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

  // Reads, on an engine holding exactly READ_CONTACTS contacts, so the figure does not depend on how
  // many commands ran before (memory storage filters and sorts a list by scanning the workspace).
  const reader = await createPromiseEngine(MemoryStorage.layer)
  const ids = []
  await forEachConcurrently(READ_CONTACTS, 1, async (i) => {
    const { data } = await reader.contacts.create(ctx, { ...contactFields(runTag, i), source: SOURCES[i % SOURCES.length] })
    ids.push(data.id)
  })
  const get = (_, i) => reader.contacts.get(ctx, ids[(i * 7919) % ids.length], null)
  const list = () => reader.contacts.list(ctx, LIST)
  await closedLoop({ concurrency: 1, seconds: warmupSeconds, op: get })
  await closedLoop({ concurrency: 1, seconds: warmupSeconds, op: list })

  const figures = { "create-contact": [], "move-stage": [], "get contact": [], "list page": [], footprint: [], heap: [] }
  for (let run = 0; run < runs; run++) {
    figures["create-contact"].push(await measure(create))
    figures["move-stage"].push(await measure(move))
    figures["get contact"].push(await measure(get))
    figures["list page"].push(await measure(list))
    const fp = await footprint(footprintContacts)
    figures.footprint.push((fp.rssBytes / fp.contacts) * 100_000 / 2 ** 20)
    figures.heap.push((fp.heapBytes / fp.contacts) * 100_000 / 2 ** 20)
    log(`  run ${run + 1}/${runs}: ${["create-contact", "move-stage", "get contact", "list page"].map((k) => `${k} ${Math.round(figures[k][run])}/s`).join(", ")}, ` +
      `${figures.footprint[run].toFixed(0)} MB RSS per 100k contacts`)
  }
  await crm.dispose()
  await reader.dispose()

  const row = (measure, unit, runs) => ({ scenario: SCENARIO, measure, system: "dealstream", unit, runs })
  return {
    rows: [
      row("create-contact, concurrency 1", "cmd/s", figures["create-contact"]),
      row("move-stage, concurrency 1", "cmd/s", figures["move-stage"]),
      row(`get contact (${READ_CONTACTS / 1000}k contacts)`, "reads/s", figures["get contact"]),
      row(`list page: filter source, sort -created_at, 25 (${READ_CONTACTS / 1000}k contacts)`, "reads/s", figures["list page"]),
      row("resident memory per 100k contacts (RSS)", "MB", figures.footprint),
      row("JS heap per 100k contacts", "MB", figures.heap)
    ],
    notes: [
      `\`createPromiseEngine(MemoryStorage.layer)\` in the bench process; one caller awaiting one operation after another (concurrency 1: the engine on memory is CPU-bound, ` +
      `more callers only interleave) for ${seconds} s per figure and run, after ${warmupSeconds} s of warm-up each.`,
      `Commands: contacts.create with the commit-path contact; deals.moveStage to the next stage, round robin over ${DEALS} deals (their streams grow during the runs: ` +
      `${(moves / DEALS).toFixed(0)} moves per deal on average by the end).`,
      `Reads on a second engine holding exactly ${READ_CONTACTS.toLocaleString("en-US")} contacts (6 sources): contacts.get of a contact by id (no expand), and ` +
      `contacts.list(${JSON.stringify(LIST)}). Memory storage answers a list by scanning and sorting the workspace's contacts, so the list figure falls as contacts are added.`,
      `Memory: a fresh \`node --expose-gc\` process per run creates ${footprintContacts.toLocaleString("en-US")} contacts after 200 warm-up ones; ` +
      `RSS and heapUsed after forced GC, after minus before, scaled to 100k contacts${footprintContacts === 100_000 ? "" : ` (quick mode measures ${footprintContacts.toLocaleString("en-US")} and scales linearly)`}. ` +
      "Each contact holds its event, its stream and its document (with search words)."
    ],
    failures
  }
}
