import {
  type DealRule,
  type DeliveryQueue,
  fieldsAfter,
  type JsonObject,
  type RequestContext,
  stageAfter,
  type Storage,
  ValidationError
} from "@dealstream/core"
import { checkModel, everyDeal, standardInvariants, workspaceCommands } from "@dealstream/core/testing"
import { expect } from "@effect/vitest"
import { type Context, Effect, type Layer, Result } from "effect"
import { engineOver, servicesOf } from "../support/engine.js"

/**
 * Stage rules through the engine, on whatever storage: the pipeline's rules set through its API
 * (required_fields, next_stage_ids), decided inside the deal decider, including by an engine that
 * kept the pipeline from before the rules were set; and a rule of one's own registered with
 * DealRules when the engine is built.
 */

/**
 * A rule of one's own: a deal in Won has a contact. Written first as "enters Won only with a
 * contact" (stageEntered), the property below found a deal patched to no contacts once in Won.
 */
export const wonNeedsContact: DealRule = (command, _state, decision) => {
  const contacts = fieldsAfter(decision)["contact_ids"]
  if (stageAfter(command, decision)?.name === "Won" && (!Array.isArray(contacts) || contacts.length === 0)) {
    return ValidationError.at("contact_ids", "a deal in Won needs a contact (rule wonNeedsContact)")
  }
}

const engineOn = (storage: Context.Context<Storage | DeliveryQueue>, rules: ReadonlyArray<DealRule> = []) =>
  engineOver(servicesOf(storage), { rules })

const outcome = <
  A,
  E extends { readonly _tag: string; readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }> }
>(
  effect: Effect.Effect<A, E>
) =>
  Effect.map(Effect.result(effect), (result) =>
    Result.isSuccess(result) ? { ok: result.success } : { refused: result.failure._tag, details: result.failure.details ?? [] }
  )

const stagesOf = (pipeline: JsonObject) => pipeline["stages"] as ReadonlyArray<{ readonly id: string; readonly name: string }>

let workspaces = 0

/** The scenario, on two engines over one storage (built by the caller, per file). */
export const stageRulesScenario = (storage: Context.Context<Storage | DeliveryQueue>) =>
  Effect.gen(function* () {
    const ctx: RequestContext = { workspaceId: `rules_${Date.now().toString(36)}_${workspaces++}`, requestId: null, actor: "test" }
    const first = yield* engineOn(storage)
    const second = yield* engineOn(storage)
    const sales = (yield* first.pipelines.list(ctx)).data[0]!
    const stage = (name: string) => stagesOf(sales).find((s) => s.name === name)!.id
    // The second engine reads the pipeline before it has rules, and keeps it.
    const early = yield* second.deals.create(ctx, { name: "Early", pipeline_id: sales["id"] })

    const ruled = yield* first.pipelines.update(
      ctx,
      sales["id"] as string,
      {
        stages: stagesOf(sales)
          .map(({ id, name }) => ({ id, name }))
          .map((s) =>
            s.name === "Lead"
              ? { ...s, next_stage_ids: [stage("Qualified"), stage("Proposal"), stage("Lost")] }
              : s.name === "Proposal"
                ? { ...s, required_fields: ["value", "expected_close_date"] }
                : s.name === "Lost"
                  ? { ...s, next_stage_ids: [] }
                  : s
          )
      },
      null
    )
    // Every stage shows its outcome and probability; its rules only when it has them.
    const shown = ["id", "name", "position", "outcome", "probability"]
    expect(stagesOf(ruled.data).map((s) => Object.keys(s))).toEqual([
      [...shown, "next_stage_ids"],
      shown,
      [...shown, "required_fields"],
      shown,
      shown,
      [...shown, "next_stage_ids"]
    ])

    // The engine that kept the pipeline from before decides on the rules all the same.
    const toWon = yield* outcome(second.deals.moveStage(ctx, early.data["id"] as string, { stage_id: stage("Won") }, null))
    expect(toWon).toEqual({
      refused: "ValidationError",
      details: [
        {
          path: "stage_id",
          message: 'stage "Won" may not follow stage "Lead" (stage rule next_stage_ids of ' + stage("Lead") + ")",
          id: stage("Lead")
        }
      ]
    })
    const toProposal = yield* outcome(second.deals.moveStage(ctx, early.data["id"] as string, { stage_id: stage("Proposal") }, null))
    expect(toProposal).toMatchObject({ refused: "ValidationError", details: [{ path: "value" }, { path: "expected_close_date" }] })
    const created = yield* outcome(
      first.deals.create(ctx, { name: "Straight in", pipeline_id: sales["id"], stage_id: stage("Proposal"), value: 5 })
    )
    expect(created).toMatchObject({ refused: "ValidationError", details: [{ path: "expected_close_date" }] })

    // With the fields, the same move goes through, and the timeline shows it.
    const patched = yield* first.deals.update(
      ctx,
      early.data["id"] as string,
      { value: 100, expected_close_date: "2026-06-30", stage_id: stage("Proposal") },
      null
    )
    expect(patched.data["stage_id"]).toBe(stage("Proposal"))
    const timeline = yield* first.deals.timeline(ctx, early.data["id"] as string, {})
    expect(timeline.data.map((e) => [e["from_stage_id"], e["to_stage_id"]])).toEqual([[stage("Lead"), stage("Proposal")]])

    // A final stage keeps its deals; clearing the rule frees them.
    const lost = yield* first.deals.create(ctx, { name: "Gone", pipeline_id: sales["id"], stage_id: stage("Lost") })
    expect(yield* outcome(second.deals.moveStage(ctx, lost.data["id"] as string, { stage_id: stage("Lead") }, null))).toMatchObject({
      refused: "ValidationError"
    })
    yield* first.pipelines.update(
      ctx,
      sales["id"] as string,
      { stages: stagesOf(sales).map(({ id, name }) => ({ id, name, next_stage_ids: null })) },
      null
    )
    expect(yield* outcome(second.deals.moveStage(ctx, lost.data["id"] as string, { stage_id: stage("Lead") }, null))).toMatchObject({
      ok: {}
    })

    // A rule of one's own, on the engine it was registered with only.
    const strict = yield* engineOn(storage, [wonNeedsContact])
    const plain = yield* strict.deals.create(ctx, { name: "No contact", pipeline_id: sales["id"], stage_id: stage("Negotiation") })
    expect(yield* outcome(strict.deals.moveStage(ctx, plain.data["id"] as string, { stage_id: stage("Won") }, null))).toEqual({
      refused: "ValidationError",
      details: [{ path: "contact_ids", message: "a deal in Won needs a contact (rule wonNeedsContact)" }]
    })
    expect(
      yield* outcome(strict.deals.create(ctx, { name: "Won outright", pipeline_id: sales["id"], stage_id: stage("Won") }))
    ).toMatchObject({ refused: "ValidationError" })
    expect(yield* outcome(first.deals.moveStage(ctx, plain.data["id"] as string, { stage_id: stage("Won") }, null))).toMatchObject({
      ok: {}
    })
  }).pipe(Effect.scoped)

/**
 * The rule of one's own over random command sequences: however a deal gets into Won (created there,
 * patched, moved), it has a contact. With `withoutRule`, the same runs without the rule must find a
 * deal that does not, or the property could not fail (on memory: it takes more runs than the
 * database's share allows).
 */
export const wonNeedsContactProperty = (
  storage: Layer.Layer<Storage | DeliveryQueue, unknown>,
  options: { readonly numRuns: number; readonly storagePerRun: boolean; readonly withoutRule: boolean }
) =>
  Effect.promise(async () => {
    const invariant = everyDeal("a deal in Won has a contact", ({ deal, stage }) =>
      stage?.name === "Won" && (deal["contact_ids"] as ReadonlyArray<string>).length === 0 ? "is in Won without a contact" : undefined
    )
    // More deals and moves than by default: more ways into Won per run.
    const commands = workspaceCommands({ weights: { createDeal: 6, moveStage: 6, updateDeal: 4 } })
    const model = {
      storage,
      storagePerRun: options.storagePerRun,
      commands,
      numRuns: options.numRuns,
      invariants: [...standardInvariants, invariant]
    }
    const kept = await checkModel({ ...model, dealRules: [wonNeedsContact] })
    if (kept.failed) throw new Error(kept.report)
    if (!options.withoutRule) return
    // Stops at the first break; the runs are there so that it is found every time.
    const broken = await checkModel({ ...model, numRuns: 500 })
    expect(broken.failed).toBe(true)
    if (broken.failed) expect(broken.violation.invariant, broken.report).toBe("a deal in Won has a contact")
  })
