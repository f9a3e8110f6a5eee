import { describe, expect, it } from "@effect/vitest"
import type { EngineService, JsonObject } from "@dealstream/core"
import { Effect } from "effect"
import { ctxOf, withEngine } from "../support/engine.js"

const ws = ctxOf("acme")
const other = ctxOf("globex")

const salesPipeline = (engine: EngineService) =>
  Effect.map(engine.pipelines.list(ws), (page) => {
    const pipeline = page.data[0]!
    return {
      id: pipeline["id"] as string,
      stages: (pipeline["stages"] as ReadonlyArray<JsonObject>).map((s) => s["id"] as string)
    }
  })

describe("engine: deals and pipelines", () => {
  it.effect("gives a new workspace the Sales pipeline with its six stages", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const page = yield* engine.pipelines.list(ws)
        expect(page.data).toHaveLength(1)
        expect(page.data[0]!["name"]).toBe("Sales")
        const names = (page.data[0]!["stages"] as ReadonlyArray<JsonObject>).map((s) => s["name"])
        expect(names).toEqual(["Lead", "Qualified", "Proposal", "Negotiation", "Won", "Lost"])
        // another workspace gets its own
        const theirs = yield* engine.pipelines.list(other)
        expect(theirs.data[0]!["id"]).not.toBe(page.data[0]!["id"])
      })
    )
  )

  it.effect("places a new deal in the first stage and logs each real stage change on its timeline", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const sales = yield* salesPipeline(engine)
        const deal = yield* engine.deals.create(ws, { name: "Big one", pipeline_id: sales.id, value: 1000, currency: "EUR" })
        const id = deal.data["id"] as string
        expect(deal.data).toMatchObject({ stage_id: sales.stages[0], status: "open", contact_ids: [] })
        const moved = yield* engine.deals.moveStage(ws, id, { stage_id: sales.stages[2], reason: "demo done" }, null)
        expect(moved.data["timeline_entry"]).toMatchObject({
          deal_id: id,
          from_stage_id: sales.stages[0],
          to_stage_id: sales.stages[2],
          reason: "demo done"
        })
        const again = yield* engine.deals.moveStage(ws, id, { stage_id: sales.stages[2] }, null)
        expect(again.data["timeline_entry"]).toBeNull()
        const patched = yield* engine.deals.update(ws, id, { stage_id: sales.stages[3], value: 2000 }, null)
        expect(patched.data).toMatchObject({ stage_id: sales.stages[3], value: 2000 })
        const timeline = yield* engine.deals.timeline(ws, id, {})
        expect(timeline.data.map((e) => [e["from_stage_id"], e["to_stage_id"]])).toEqual([
          [sales.stages[0], sales.stages[2]],
          [sales.stages[2], sales.stages[3]]
        ])
        const foreign = yield* Effect.flip(engine.deals.moveStage(ws, id, { stage_id: "stage_nope" }, null))
        expect(foreign._tag === "ValidationError" && foreign.details[0]?.path).toBe("stage_id")
      })
    )
  )

  it.effect("moves a deal to another pipeline's first stage when only pipeline_id changes", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const sales = yield* salesPipeline(engine)
        const hiring = yield* engine.pipelines.create(ws, { name: "Partners", stages: [{ name: "Intro" }, { name: "Signed" }] })
        const hiringStages = (hiring.data["stages"] as ReadonlyArray<JsonObject>).map((s) => s["id"])
        const deal = yield* engine.deals.create(ws, { name: "P", pipeline_id: sales.id, stage_id: sales.stages[1] })
        const id = deal.data["id"] as string
        const moved = yield* engine.deals.update(ws, id, { pipeline_id: hiring.data["id"] }, null)
        expect(moved.data).toMatchObject({ pipeline_id: hiring.data["id"], stage_id: hiringStages[0] })
        expect((yield* engine.deals.timeline(ws, id, {})).data).toHaveLength(1)
      })
    )
  )

  it.effect("refuses to remove a stage that holds a deal, live or in the trash, and allows it once the deal moved on", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const created = yield* engine.pipelines.create(ws, { name: "Two", stages: [{ name: "A" }, { name: "B" }] })
        const pipelineId = created.data["id"] as string
        const [a, b] = (created.data["stages"] as ReadonlyArray<JsonObject>).map((s) => s["id"] as string)
        const deal = yield* engine.deals.create(ws, { name: "D", pipeline_id: pipelineId, stage_id: b })
        const refused = yield* Effect.flip(engine.pipelines.update(ws, pipelineId, { stages: [{ id: a, name: "A" }] }, null))
        expect(refused._tag).toBe("Conflict")
        const dealId = deal.data["id"] as string
        yield* engine.deals.delete(ws, dealId, null)
        const stillHeld = yield* Effect.flip(engine.pipelines.update(ws, pipelineId, { stages: [{ id: a, name: "A" }] }, null))
        expect(stillHeld._tag).toBe("Conflict")
        yield* engine.deals.restore(ws, dealId)
        yield* engine.deals.moveStage(ws, dealId, { stage_id: a }, null)
        const updated = yield* engine.pipelines.update(ws, pipelineId, { stages: [{ id: a, name: "A!" }, { name: "C" }] }, null)
        expect((updated.data["stages"] as ReadonlyArray<JsonObject>).map((s) => [s["name"], s["position"]])).toEqual([
          ["A!", 0],
          ["C", 1]
        ])
      })
    )
  )

  it.effect("derives a contact's deal_ids from live deals, expands deals and activities", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const sales = yield* salesPipeline(engine)
        const company = yield* engine.companies.create(ws, { name: "Buyer Inc" })
        const companyId = company.data["id"] as string
        const contact = yield* engine.contacts.create(ws, { email: "buyer@x.io", company_id: companyId })
        const contactId = contact.data["id"] as string
        const d1 = yield* engine.deals.create(ws, { name: "D1", pipeline_id: sales.id, contact_ids: [contactId] })
        const d2 = yield* engine.deals.create(ws, { name: "D2", pipeline_id: sales.id, contact_ids: [contactId] })
        yield* engine.deals.moveStage(ws, d1.data["id"] as string, { stage_id: sales.stages[1] }, null)
        const plain = yield* engine.contacts.get(ws, contactId, null)
        expect(plain.data["deal_ids"]).toEqual([d1.data["id"], d2.data["id"]])
        expect(plain.data["company_ids"]).toEqual([companyId])
        yield* engine.deals.delete(ws, d2.data["id"] as string, null)
        const note = yield* engine.activities.create(ws, { type: "note", subject: "Met", contact_ids: [contactId] })
        const call = yield* engine.activities.create(ws, { type: "call", subject: "Called", contact_ids: [contactId] })
        const expanded = yield* engine.contacts.get(ws, contactId, "deals,activities")
        expect(expanded.data["deal_ids"]).toBeUndefined()
        expect((expanded.data["deals"] as ReadonlyArray<JsonObject>).map((d) => d["name"])).toEqual(["D1"])
        // Its activities, the records, newest first; what the log recorded is the history's.
        expect((expanded.data["activities"] as ReadonlyArray<JsonObject>).map((a) => a["id"])).toEqual([call.data["id"], note.data["id"]])
        const filtered = yield* engine.deals.list(ws, { contact_id: contactId })
        expect(filtered.data.map((d) => d["name"])).toEqual(["D1"])
        const bad = yield* Effect.flip(engine.contacts.get(ws, contactId, "deals,notes"))
        expect(bad._tag === "ValidationError" && bad.details[0]?.path).toBe("expand")
        const unknownContact = yield* Effect.flip(
          engine.deals.create(ws, { name: "X", pipeline_id: sales.id, contact_ids: ["con_missing"] })
        )
        expect(unknownContact._tag === "ValidationError" && unknownContact.details[0]?.path).toBe("contact_ids[0]")
      })
    )
  )

  it.effect("filters deals by the list parameters and ranges", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const sales = yield* salesPipeline(engine)
        for (const [name, value, date] of [
          ["a", 100, "2026-01-10"],
          ["b", 500, "2026-02-10"],
          ["c", 900, "2026-03-10"]
        ] as const) {
          yield* engine.deals.create(ws, { name, pipeline_id: sales.id, value, expected_close_date: date })
        }
        const mid = yield* engine.deals.list(ws, { value_min: "100", value_max: "500", close_date_from: "2026-02-01", sort: "-value" })
        expect(mid.data.map((d) => d["name"])).toEqual(["b"])
        const bad = yield* Effect.flip(engine.deals.list(ws, { status: "pending" }))
        expect(bad._tag === "ValidationError" && bad.details[0]?.path).toBe("status")
        const unknown = yield* Effect.flip(engine.deals.list(ws, { colour: "red" }))
        expect(unknown._tag === "ValidationError" && unknown.details[0]?.path).toBe("colour")
      })
    )
  )

  it.effect("loses no stage move when many run at once on one deal", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const sales = yield* salesPipeline(engine)
        const deal = yield* engine.deals.create(ws, { name: "Hot", pipeline_id: sales.id })
        const id = deal.data["id"] as string
        const targets = Array.from({ length: 20 }, (_, i) => sales.stages[(i % 5) + 1]!)
        const results = yield* Effect.all(
          targets.map((stage) => Effect.result(engine.deals.moveStage(ws, id, { stage_id: stage }, null))),
          { concurrency: "unbounded" }
        )
        const applied = results.filter((r) => r._tag === "Success" && r.success.data["timeline_entry"] !== null).length
        const timeline = (yield* engine.deals.timeline(ws, id, { limit: "100" })).data
        expect(timeline).toHaveLength(applied)
        timeline.forEach((entry, i) => {
          if (i > 0) expect(entry["from_stage_id"]).toBe(timeline[i - 1]!["to_stage_id"])
        })
        const current = yield* engine.deals.get(ws, id)
        expect(current.data["stage_id"]).toBe(timeline[timeline.length - 1]!["to_stage_id"])
      })
    )
  )
})
