import { describe, expect } from "@effect/vitest"
import { DEAL_ID, dealScenario, traceDeal } from "../testing/arbitraries/deal.js"
import { incrementalProblems } from "../testing/invariants/rebuild.js"
import { restoreProblems } from "../testing/invariants/restore.js"
import { timelineProblems } from "../testing/invariants/timeline.js"
import { prop } from "../testing/property.js"
import { documentsAlong } from "../testing/trace.js"
import { dealAggregate } from "./aggregate.js"

// One deal's life in random pipelines (the harness's deal scenario): patches that move it or name a
// pipeline that does not exist, moves within its pipeline and to foreign stages, deletes, restores
// within and past the 30-day window, purges. The engine's lookups are played by the scenario.
const scenario = dealScenario()
const stream = { workspaceId: "ws_model", id: DEAL_ID, definitions: [] }
const stageOf = (doc: { readonly data: Record<string, unknown> } | null) => doc?.data["stage_id"]

// That the deals and timeline entries storage holds while commands run equal a rebuild from the log
// is a property of the engine and its storage: test/engine/rebuildEqualsStored.*.spec.ts.
describe("deal timeline properties", () => {
  prop("one entry per real stage change and none for a no-op", [scenario], ([sc]) => {
    for (const { after, before, events } of traceDeal(sc).steps) {
      const moves = events.filter((e) => e.type === "deal.stage_changed").length
      expect(moves).toBe(before !== null && after !== null && stageOf(before) !== stageOf(after) ? 1 : 0)
    }
  })

  prop("a move to the current stage records nothing", [scenario], ([sc]) => {
    for (const { before, command, events } of traceDeal(sc).steps) {
      if (command.type === "MoveStage" && command.stageId === stageOf(before)) expect(events).toEqual([])
    }
  })

  prop("the entries the command path writes chain from the creation stage to the current stage, in time order", [scenario], ([sc]) => {
    const trace = traceDeal(sc)
    const written = documentsAlong(dealAggregate, trace, stream)
    const entries = [...written].filter(([key]) => key.startsWith("timeline_entry ")).map(([, doc]) => doc.data)
    expect(timelineProblems({ dealId: DEAL_ID, events: trace.history, deal: trace.document?.data ?? null, entries })).toEqual([])
  })

  prop("the deal always sits in a stage of its own pipeline", [scenario], ([sc]) => {
    for (const { after } of traceDeal(sc).steps) {
      if (after === null) continue
      const pipeline = sc.pipelines.find((p) => p.id === after.data["pipeline_id"])
      expect(pipeline?.stages.some((s) => s.id === stageOf(after))).toBe(true)
    }
  })

  prop("a restore gives back the document as it was before the delete", [scenario], ([sc]) => {
    expect(restoreProblems(traceDeal(sc).steps)).toEqual([])
  })

  prop("the documents written command by command are those a rebuild writes from the whole stream", [scenario], ([sc]) => {
    expect(incrementalProblems(dealAggregate, traceDeal(sc), stream)).toEqual([])
  })
})
