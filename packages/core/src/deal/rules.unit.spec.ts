import { describe, expect, it } from "@effect/vitest"
import { Conflict, ValidationError } from "../errors.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import type { CreateDeal, MoveStage, UpdateDeal } from "./commands.js"
import { dealDecider } from "./decider.js"
import type { DealEvent } from "./events.js"
import { type DealRule, fieldsAfter, stageEntered, withDealRules } from "./rules.js"

const id = "deal_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
// Lead may go to Proposal or Lost only; Proposal needs a value and a close date; Lost is final.
const sales: PipelineInfo = {
  id: "pipe_a",
  stages: [
    { id: "lead", name: "Lead", position: 0, next_stage_ids: ["proposal", "lost"] },
    { id: "proposal", name: "Proposal", position: 1, required_fields: ["value", "expected_close_date"] },
    { id: "won", name: "Won", position: 2 },
    { id: "lost", name: "Lost", position: 3, next_stage_ids: [] }
  ]
}
const partners: PipelineInfo = {
  id: "pipe_b",
  stages: [{ id: "intro", name: "Intro", position: 0, required_fields: ["owner_id", "region"] }]
}

// A deal with nothing but a name, as parseDealCreate leaves it.
const fields: Record<string, string | null | Array<string>> = {
  name: "Pilot",
  pipeline_id: "pipe_a",
  stage_id: null,
  status: "open",
  contact_ids: []
}
for (const key of ["value", "currency", "expected_close_date", "owner_id"]) fields[key] = null
const create = (patch: Partial<CreateDeal> = {}): CreateDeal => ({
  type: "CreateDeal",
  id,
  at: t0,
  fields,
  pipeline: sales,
  unknownContactIds: [],
  ...patch
})
const createdIn = (stage: string, more: Record<string, unknown> = {}): DealEvent => ({
  type: "deal.created",
  data: { id, fields: { ...fields, stage_id: stage, closed_at: null, lost_reason: null, ...more } as never, at: t0 }
})
const move = (stageId: string, pipeline = sales): MoveStage => ({
  type: "MoveStage",
  id,
  at: t1,
  stageId,
  reason: null,
  entryId: "tle_1",
  pipeline
})
const patch = (f: UpdateDeal["fields"], targetPipeline: PipelineInfo = sales): UpdateDeal => ({
  type: "UpdateDeal",
  id,
  at: t1,
  fields: f,
  entryId: "tle_1",
  targetPipeline,
  unknownContactIds: []
})
const moved = (from: [string, string], to: [string, string]): DealEvent => ({
  type: "deal.stage_changed",
  data: {
    entry_id: "tle_1",
    from_pipeline_id: from[0],
    to_pipeline_id: to[0],
    from_stage_id: from[1],
    to_stage_id: to[1],
    reason: null,
    from_status: "open",
    to_status: "open",
    at: t1
  }
})
const spec = DeciderSpecification.for(dealDecider)

describe("the pipeline's stage rules, in the deal decider", () => {
  it("let a deal enter a stage with its required fields set, on creation and by a move", () => {
    spec
      .given([])
      .when(create({ fields: { ...fields, stage_id: "proposal", value: 10, expected_close_date: "2026-03-01" } }))
      .then([createdIn("proposal", { value: 10, expected_close_date: "2026-03-01" })])
    spec
      .given([createdIn("lead", { value: 10, expected_close_date: "2026-03-01" })])
      .when(move("proposal"))
      .then([moved(["pipe_a", "lead"], ["pipe_a", "proposal"])])
  })

  it("refuse entering without them, one detail per missing field, naming the rule and the stage", () => {
    const missing = ValidationError.of([
      { path: "value", message: 'is required to enter stage "Proposal" (stage rule required_fields of proposal)', id: "proposal" },
      {
        path: "expected_close_date",
        message: 'is required to enter stage "Proposal" (stage rule required_fields of proposal)',
        id: "proposal"
      }
    ])
    spec
      .given([createdIn("lead")])
      .when(move("proposal"))
      .then(missing)
    spec
      .given([])
      .when(create({ fields: { ...fields, stage_id: "proposal" } }))
      .then(missing)
    // A patch that sets one of them and moves still lacks the other.
    spec
      .given([createdIn("lead")])
      .when(patch({ stage_id: "proposal", value: 5 }))
      .thenFails("ValidationError", (e) => expect(e.details.map((d) => d.path)).toEqual(["expected_close_date"]))
    // A patch that sets both and moves is accepted: the fields count as the patch leaves them.
    spec
      .given([createdIn("lead")])
      .when(patch({ stage_id: "proposal", value: 5, expected_close_date: "2026-03-01" }))
      .then([
        { type: "deal.updated", data: { changed: { value: 5, expected_close_date: "2026-03-01" }, at: t1 } },
        moved(["pipe_a", "lead"], ["pipe_a", "proposal"])
      ])
  })

  it("let a deal leave a stage only for the stages it names, and never a final one", () => {
    spec
      .given([createdIn("lead")])
      .when(move("won"))
      .then(
        ValidationError.of([
          {
            path: "stage_id",
            message: 'stage "Won" may not follow stage "Lead" (stage rule next_stage_ids of lead)',
            id: "lead"
          }
        ])
      )
    spec
      .given([createdIn("lead")])
      .when(move("lost"))
      .then([moved(["pipe_a", "lead"], ["pipe_a", "lost"])])
    spec
      .given([createdIn("lost")])
      .when(move("lead"))
      .thenFails("ValidationError")
    // Without next_stage_ids, any stage may follow; a move to the current stage is no move at all.
    spec
      .given([createdIn("won")])
      .when(move("lead"))
      .then([moved(["pipe_a", "won"], ["pipe_a", "lead"])])
    spec
      .given([createdIn("lost")])
      .when(move("lost"))
      .thenNothingHappens()
  })

  it("check a move to another pipeline against the new stage's required fields only", () => {
    spec
      .given([createdIn("lost")])
      .when(patch({ pipeline_id: "pipe_b" }, partners))
      .thenFails("ValidationError", (e) => expect(e.details.map((d) => d.path)).toEqual(["owner_id", "region"]))
    spec
      .given([createdIn("lost")])
      .when(patch({ pipeline_id: "pipe_b", owner_id: "usr_1", region: "emea" }, partners))
      .then([
        { type: "deal.updated", data: { changed: { owner_id: "usr_1", region: "emea" }, at: t1 } },
        moved(["pipe_a", "lost"], ["pipe_b", "intro"])
      ])
  })

  it("leave commands that enter no stage alone", () => {
    spec
      .given([createdIn("lost")])
      .when(patch({ value: 3 }))
      .then([{ type: "deal.updated", data: { changed: { value: 3 }, at: t1 } }])
    // Required fields are checked on entry only: a deal in the stage may clear one.
    spec
      .given([createdIn("proposal", { value: 10 })])
      .when(patch({ value: null }))
      .then([{ type: "deal.updated", data: { changed: { value: null }, at: t1 } }])
  })
})

describe("rules of one's own (withDealRules)", () => {
  const noWonWithoutContacts: DealRule = (command, _state, decision) => {
    const entered = stageEntered(command, decision)
    if (entered?.stage?.name === "Won" && (fieldsAfter(decision)["contact_ids"] as ReadonlyArray<string>).length === 0) {
      return new Conflict({ message: "a won deal needs a contact", details: [{ path: "contact_ids", message: "is empty" }] })
    }
  }
  const seen: Array<string> = []
  const watching: DealRule = (command) => {
    seen.push(command.type)
  }
  const spec = DeciderSpecification.for(withDealRules(dealDecider, [watching, noWonWithoutContacts]))

  it("refuse what they return an error for, after the built-in rules", () => {
    spec
      .given([createdIn("won")])
      .when(patch({ stage_id: "won" }))
      .thenNothingHappens()
    spec
      .given([createdIn("proposal")])
      .when(move("won"))
      .then(new Conflict({ message: "a won deal needs a contact", details: [] }))
    spec
      .given([createdIn("proposal", { contact_ids: ["con_1"] })])
      .when(move("won"))
      .then([moved(["pipe_a", "proposal"], ["pipe_a", "won"])])
    // The pipeline's rules refuse first: the rule never sees a command they refuse.
    seen.length = 0
    spec
      .given([createdIn("lead")])
      .when(move("won"))
      .thenFails("ValidationError")
    expect(seen).toEqual([])
  })

  it("see the command, the state before and the decision", () => {
    const calls: Array<unknown> = []
    const recording = withDealRules(dealDecider, [
      (command, state, decision) => {
        calls.push({
          command: command.type,
          before: state.status,
          events: decision.events.map((e) => e.type),
          after: decision.after.status
        })
      }
    ])
    DeciderSpecification.for(recording)
      .given([createdIn("won")])
      .when({ type: "DeleteDeal", id, at: t1 })
      .then([{ type: "deal.deleted", data: { at: t1 } }])
    expect(calls).toEqual([{ command: "DeleteDeal", before: "live", events: ["deal.deleted"], after: "deleted" }])
  })

  it("stageEntered names the stage a decision puts the deal in, and nothing when it stays", () => {
    const decision = { events: [moved(["pipe_a", "lead"], ["pipe_a", "lost"])], after: { status: "live" as const, fields: {} } }
    expect(stageEntered(move("lost"), decision)).toEqual({
      stageId: "lost",
      stage: sales.stages[3],
      pipeline: sales,
      from: { stageId: "lead", pipelineId: "pipe_a" }
    })
    expect(stageEntered(patch({ value: 1 }), { events: [], after: { status: "live", fields: {} } })).toBeNull()
  })
})
