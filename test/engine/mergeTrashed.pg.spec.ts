import { onBothStorages, type StorageServices } from "../support/bothStorages.js"
import type { EngineService } from "@dealstream/core"
import { describe, expect } from "@effect/vitest"
import { Effect } from "effect"
import { engineOver } from "../support/engine.js"

/**
 * A merge re-points the links of live records; a record in the trash keeps its links as they were
 * (the trash shows records as they were deleted). When it comes back, every link it has to a record
 * merged meanwhile names that record's survivor, followed through merges of merges, in the same
 * commit as the restore (an update after the restore). A record unmerged meanwhile is named again.
 */

let runs = 0

const restored = (services: StorageServices) =>
  Effect.gen(function* () {
    const engine: EngineService = yield* engineOver(services)
    const ctx = { workspaceId: `merge_trash_${Date.now().toString(36)}_${runs++}`, requestId: null, actor: "test" }
    const idOf = (made: { readonly data: { readonly [key: string]: unknown } }) => made.data["id"] as string
    const contact = (email: string, body: object = {}) => Effect.map(engine.contacts.create(ctx, { email, ...body }), idOf)
    const company = (domain: string) => Effect.map(engine.companies.create(ctx, { name: domain, domain }), idOf)
    const pipeline = (yield* engine.pipelines.list(ctx)).data[0]!["id"]

    const [survivor, merged, unmerged, chained, middle, last] = (yield* Effect.all(
      ["s", "m", "u", "c", "mid", "last"].map((name) => contact(`${name}@trash.io`))
    )) as [string, string, string, string, string, string]
    const [keptCompany, mergedCompany] = yield* Effect.all([company("kept.io"), company("merged.io")])
    const deal = idOf(
      yield* engine.deals.create(ctx, {
        name: "d",
        pipeline_id: pipeline,
        contact_ids: [merged, unmerged, chained],
        company_id: mergedCompany
      })
    )
    const activity = idOf(yield* engine.activities.create(ctx, { type: "note", subject: "a", contact_ids: [merged, survivor] }))
    const employee = yield* contact("e@trash.io", { company_ids: [mergedCompany] })
    yield* engine.deals.delete(ctx, deal, null)
    yield* engine.activities.delete(ctx, activity, null)
    yield* engine.contacts.delete(ctx, employee, null)

    yield* engine.contacts.merge(ctx, survivor, { merge_ids: [merged, unmerged] })
    yield* engine.contacts.unmerge(ctx, survivor, { contact_id: unmerged })
    yield* engine.contacts.merge(ctx, middle, { merge_ids: [chained] })
    yield* engine.contacts.merge(ctx, last, { merge_ids: [middle] })
    yield* engine.companies.merge(ctx, keptCompany, { merge_ids: [mergedCompany] })
    // In the trash, they are as they were deleted.
    expect((yield* services.storage.getDocument("deal", ctx.workspaceId, deal))?.data["contact_ids"]).toEqual([merged, unmerged, chained])

    yield* engine.deals.restore(ctx, deal)
    yield* engine.activities.restore(ctx, activity)
    yield* engine.contacts.restore(ctx, employee)
    const shownDeal = (yield* engine.deals.get(ctx, deal, null)).data
    expect([shownDeal["contact_ids"], shownDeal["company_id"]]).toEqual([[survivor, unmerged, last], keptCompany])
    expect((yield* engine.activities.get(ctx, activity)).data["contact_ids"]).toEqual([survivor])
    const shownEmployee = (yield* engine.contacts.get(ctx, employee, null)).data
    expect([shownEmployee["company_ids"], shownEmployee["company_id"]]).toEqual([[keptCompany], keptCompany])
    // One commit: the restore, then the update that re-points.
    const stream = yield* services.storage.readStream(deal)
    expect(stream.slice(-2).map((event) => [event.type, event.sequence - stream.at(-2)!.sequence])).toEqual([
      ["deal.restored", 0],
      ["deal.updated", 1]
    ])
  }).pipe(Effect.scoped)

describe("a record restored from the trash names the survivors of records merged meanwhile", () => {
  onBothStorages(restored)
})
