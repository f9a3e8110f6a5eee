import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { prop } from "../testing/property.js"
import { Result } from "effect"
import type { Projected } from "../decider.js"
import type { JsonObject } from "../json.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import type { DealCommand } from "./commands.js"
import { dealDecider } from "./decider.js"
import type { DealEvent } from "./events.js"
import { projectDeal, timelineEntryOf } from "./projection.js"

const id = "deal_1"
const DAY = 24 * 60 * 60 * 1000
const start = Date.parse("2026-01-01T00:00:00.000Z")

const pipelines: ReadonlyArray<PipelineInfo> = [
  { id: "pipe_a", stages: [{ id: "a1", name: "Lead", position: 0 }, { id: "a2", name: "Won", position: 1 }, { id: "a3", name: "Lost", position: 2 }] },
  { id: "pipe_b", stages: [{ id: "b1", name: "Intro", position: 0 }, { id: "b2", name: "Signed", position: 1 }] }
]
const pipelineById = (pipelineId: unknown): PipelineInfo | null => pipelines.find((p) => p.id === pipelineId) ?? null
const allStages = pipelines.flatMap((p) => p.stages.map((s) => s.id))

const stage = fc.constantFrom(...allStages)
const pipelineId = fc.constantFrom("pipe_a", "pipe_b", "pipe_gone")
// Mostly inside the 30-day window, sometimes past it.
const gap = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3 * DAY }), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 45 * DAY }), weight: 1 })

type Step =
  | { readonly kind: "patch"; readonly fields: JsonObject; readonly gap: number }
  | { readonly kind: "move"; readonly stageId: string; readonly reason: string | null; readonly gap: number }
  | { readonly kind: "delete" | "restore"; readonly gap: number }

const patch: fc.Arbitrary<JsonObject> = fc.record(
  {
    name: fc.constantFrom("Deal", "Bigger deal"),
    value: fc.constantFrom(100, 200, null),
    status: fc.constantFrom("open", "won", "lost"),
    stage_id: stage,
    pipeline_id: pipelineId
  },
  { requiredKeys: [] }
)

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("patch" as const), fields: patch, gap }), weight: 4 },
  {
    arbitrary: fc.record({ kind: fc.constant("move" as const), stageId: stage, reason: fc.constantFrom(null, "why"), gap }),
    weight: 4
  },
  { arbitrary: fc.record({ kind: fc.constant("delete" as const), gap }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("restore" as const), gap }), weight: 2 }
)

const scenario = fc.record({
  createdIn: fc.constantFrom(...pipelines),
  // An index into the pipeline's stages, so creation always succeeds; refusals have unit specs.
  createdStage: fc.option(fc.nat({ max: 9 }), { nil: null }),
  steps: fc.array(step, { maxLength: 40, size: "medium" })
})
type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never

interface Traced {
  readonly step: Step
  readonly at: string
  readonly accepted: boolean
  readonly events: ReadonlyArray<DealEvent>
  readonly before: Projected | null
  readonly after: Projected | null
}

/** Plays the engine: it looks pipelines up, then decides, evolves and projects event by event. */
const run = ({ createdIn, createdStage, steps }: Scenario) => {
  let now = start
  let state = dealDecider.initialState
  let doc: Projected | null = null
  const log: Array<DealEvent> = []
  const apply = (command: DealCommand) => {
    const result = dealDecider.decide(command, state)
    const events = Result.getOrElse(result, () => [])
    for (const event of events) {
      log.push(event)
      state = dealDecider.evolve(state, event)
      doc = projectDeal(doc, event)
    }
    return { accepted: Result.isSuccess(result), events }
  }
  const commandOf = (s: Step, at: string, entryId: string): DealCommand => {
    switch (s.kind) {
      case "patch":
        return {
          type: "UpdateDeal",
          id,
          at,
          fields: s.fields,
          entryId,
          targetPipeline: pipelineById(s.fields["pipeline_id"] ?? doc?.data["pipeline_id"]),
          unknownContactIds: []
        }
      case "move":
        return {
          type: "MoveStage",
          id,
          at,
          stageId: s.stageId,
          reason: s.reason,
          entryId,
          pipeline: pipelineById(doc?.data["pipeline_id"]) ?? createdIn
        }
      case "delete":
        return { type: "DeleteDeal", id, at }
      case "restore":
        return { type: "RestoreDeal", id, at }
    }
  }

  apply({
    type: "CreateDeal",
    id,
    at: new Date(now).toISOString(),
    fields: {
      name: "Deal",
      pipeline_id: createdIn.id,
      stage_id: createdStage === null ? null : createdIn.stages[createdStage % createdIn.stages.length]?.id ?? null,
      value: null,
      currency: null,
      expected_close_date: null,
      owner_id: null,
      contact_ids: [],
      status: "open"
    },
    pipeline: createdIn,
    unknownContactIds: []
  })
  const creation = doc as Projected | null
  if (creation === null) throw new Error("the scenario's deal was not created")
  const trace: Array<Traced> = []
  steps.forEach((s, i) => {
    now += s.gap
    const at = new Date(now).toISOString()
    const before = doc
    const { accepted, events } = apply(commandOf(s, at, `tle_${i}`))
    trace.push({ step: s, at, accepted, events, before, after: doc })
  })
  return { creation, doc: doc as Projected | null, log, trace }
}

const stageOf = (doc: Projected | null) => doc?.data["stage_id"]
const entriesOf = (events: ReadonlyArray<DealEvent>) =>
  events.flatMap((e) => {
    const entry = timelineEntryOf(id, e)
    return entry === null ? [] : [entry]
  })

// That the deals and timeline entries stored while commands run equal a rebuild from the log is a
// property of the engine and its storage, not of this fold: test/engine/rebuildEqualsStored.*.spec.ts.
describe("deal timeline properties", () => {
  prop("one entry per real stage change and none for a no-op", [scenario], ([sc]) => {
    const { trace } = run(sc)
    for (const { after, before, events } of trace) {
      const moved = stageOf(before) !== stageOf(after)
      expect(entriesOf(events).length).toBe(moved ? 1 : 0)
    }
  })

  prop("a move or patch to the current stage records nothing", [scenario], ([sc]) => {
    const { trace } = run(sc)
    for (const { before, events, step: s } of trace) {
      if (s.kind === "move" && s.stageId === stageOf(before)) {
        expect(events).toEqual([])
      }
    }
  })

  prop("entries chain from the creation stage to the current stage, in time order", [scenario], ([sc]) => {
    const { creation, doc, log } = run(sc)
    const entries = entriesOf(log)
    let current = stageOf(creation)
    let lastAt = ""
    for (const entry of entries) {
      expect(entry["deal_id"]).toBe(id)
      expect(entry["from_stage_id"]).toBe(current)
      expect(entry["to_stage_id"]).not.toBe(entry["from_stage_id"])
      expect(String(entry["changed_at"]) >= lastAt).toBe(true)
      current = entry["to_stage_id"]
      lastAt = String(entry["changed_at"])
    }
    expect(stageOf(doc)).toBe(current)
    expect(new Set(entries.map((e) => e["id"])).size).toBe(entries.length)
  })

  prop("the deal always sits in a stage of its own pipeline", [scenario], ([sc]) => {
    const { trace } = run(sc)
    for (const { after } of trace) {
      const pipeline = pipelineById(after?.data["pipeline_id"])
      expect(pipeline?.stages.some((s) => s.id === stageOf(after))).toBe(true)
    }
  })

  prop("a restore gives back the document as it was before the delete", [scenario], ([sc]) => {
    const { trace } = run(sc)
    let beforeDelete: Projected | null = null
    for (const { accepted, after, before, step: s } of trace) {
      if (accepted && s.kind === "delete") beforeDelete = before
      if (accepted && s.kind === "restore") {
        expect(after).toEqual(beforeDelete)
      }
    }
  })
})
