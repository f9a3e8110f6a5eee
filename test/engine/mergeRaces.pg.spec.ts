import { onBothStorages, type StorageServices } from "../support/bothStorages.js"
import type { Commit, EngineService, JsonObject, StorageService } from "@dealstream/core"
import { describe, expect } from "@effect/vitest"
import { Effect } from "effect"
import { engineOver } from "../support/engine.js"

/**
 * A deal that comes to name a contact while that contact is being merged (issue 28): its link is
 * never stored naming the merged contact. Each race is set up exactly, by a storage that runs the
 * other write just before a commit of the first goes on:
 *  - the deal is stored between the merge's read of the links and its commit: the merge finds it
 *    once committed and points it at the survivor (records/merge.ts);
 *  - the deal found the contact live, and the merge commits before the deal does: the deal's commit
 *    checks the contact is still at the version it read (engine/base/linkGuards.ts), fails, and the
 *    deal is decided again and refused (400, an unknown contact).
 * The planted bug: a storage that drops those checks from every commit. The second race then
 * stores a deal naming the merged contact, and the test says so.
 */

const hasEvent = (commit: Commit, type: string) => commit.streams.some((s) => s.events.some((e) => e.type === type))

/** The storage, with `before` run (once) ahead of the first commit `when` picks; `planted` drops the link checks. */
const racing = (storage: StorageService, planted: boolean) => {
  let hook: { readonly when: (commit: Commit) => boolean; readonly before: Effect.Effect<unknown, unknown> } | null = null
  const wrapped: StorageService = {
    ...storage,
    commit: (commit) => {
      const sent = planted ? { ...commit, streams: commit.streams.filter((s) => s.events.length > 0) } : commit
      const due = hook?.when(commit) ? hook : null
      if (due === null) return storage.commit(sent)
      hook = null
      return Effect.andThen(Effect.orDie(due.before), storage.commit(sent))
    }
  }
  return { storage: wrapped, setHook: (next: NonNullable<typeof hook>) => (hook = next) }
}

let runs = 0

const race = (services: StorageServices, planted: boolean) =>
  Effect.gen(function* () {
    const { setHook, storage } = racing(services.storage, planted)
    const engine: EngineService = yield* engineOver({ storage, queue: services.queue })
    const ctx = { workspaceId: `merge_race_${Date.now().toString(36)}_${runs++}`, requestId: null, actor: "test" }
    const contact = (email: string) => Effect.map(engine.contacts.create(ctx, { email }), (made) => made.data["id"] as string)
    const dealsNaming = (id: string) =>
      Effect.map(
        storage.queryDocuments("deal", ctx.workspaceId, {
          where: { _tag: "HasElement", field: { name: "contact_ids", type: "id_array" }, value: id },
          scope: "live",
          sort: { field: { name: "id", type: "id" }, direction: "asc" },
          after: null,
          limit: 100
        }),
        (docs) => docs.map((doc) => doc.id)
      )

    const pipeline = (yield* engine.pipelines.list(ctx)).data[0]!["id"]
    // 1. The deal is stored after the merge read the links, before the merge's commit.
    const survivor = yield* contact("s1@race.io")
    const merged = yield* contact("m1@race.io")
    let early: string | null = null
    setHook({
      when: (commit) => hasEvent(commit, "contact.merged_into"),
      before: Effect.map(engine.deals.create(ctx, { name: "early", pipeline_id: pipeline, contact_ids: [merged] }), (made) => {
        early = made.data["id"] as string
      })
    })
    const answer: JsonObject = yield* engine.contacts.merge(ctx, survivor, { merge_ids: [merged] })
    expect(early).not.toBeNull()
    expect((answer["moved"] as JsonObject)["deal_ids"]).toContain(early)
    expect(yield* dealsNaming(merged)).toEqual([])
    expect((yield* storage.getDocument("deal", ctx.workspaceId, early!))?.data["contact_ids"]).toEqual([survivor])

    // 2. The deal found the contact live; the merge commits before the deal's commit goes on.
    const survivor2 = yield* contact("s2@race.io")
    const merged2 = yield* contact("m2@race.io")
    setHook({
      when: (commit) => hasEvent(commit, "deal.created"),
      before: engine.contacts.merge(ctx, survivor2, { merge_ids: [merged2] })
    })
    const late = yield* Effect.result(engine.deals.create(ctx, { name: "late", pipeline_id: pipeline, contact_ids: [merged2] }))
    return { late, naming: yield* dealsNaming(merged2) }
  }).pipe(Effect.scoped)

const checked = (services: StorageServices) =>
  Effect.gen(function* () {
    const { late, naming } = yield* race(services, false)
    expect(late._tag === "Failure" ? { _tag: late.failure._tag, message: late.failure.message } : late).toMatchObject({
      _tag: "ValidationError",
      message: expect.stringContaining("contact_ids")
    })
    expect(naming).toEqual([])
    // The planted bug: without the checks the late deal is stored naming the merged contact.
    const planted = yield* race(services, true)
    expect(planted.late._tag).toBe("Success")
    expect(planted.naming.length).toBe(1)
  })

describe("a deal naming a contact while it is merged", () => {
  onBothStorages(checked)
})
