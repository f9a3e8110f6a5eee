import { describe, expect, it } from "@effect/vitest"
import { type Collection, rebuildDocuments, Storage, type StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { ctxOf, withEngine } from "../support/engine.js"

const workspaces = ["acme", "globex"]
const collections: ReadonlyArray<Collection> = ["contact", "deal", "timeline_entry", "pipeline"]

/** Every document of the test's workspaces, live and in the trash. */
const snapshot = Effect.gen(function* () {
  const storage = yield* Storage
  const out: Array<StoredDocument> = []
  for (const ws of workspaces) {
    for (const collection of collections) {
      for (const scope of ["live", "deleted"] as const) {
        out.push(
          ...(yield* storage.queryDocuments(collection, ws, {
            where: { _tag: "True" },
            scope,
            sort: { field: { name: "id", type: "id" }, direction: "asc" },
            after: null,
            limit: 10_000
          }))
        )
      }
    }
  }
  return out
})

describe("engine: rebuild", () => {
  it.effect("rebuilds from the log exactly the documents the commands wrote, purged records excepted", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-03-01T00:00:00.000Z"))
        for (const [i, ws] of workspaces.map((w, i) => [i, ctxOf(w)] as const)) {
          yield* engine.customFields.create(ws, { object: "contact", key: "nickname", label: "Nickname", type: "text" })
          const sales = (yield* engine.pipelines.list(ws)).data[0]!
          const stages = (sales["stages"] as ReadonlyArray<Record<string, string>>).map((s) => s["id"]!)
          const ids: Array<string> = []
          for (let n = 0; n < 12; n++) {
            const c = yield* engine.contacts.create(ws, { email: `c${n}@w${i}.io`, first_name: `F${n}`, nickname: `nick ${n}` })
            ids.push(c.data["id"] as string)
            yield* TestClock.adjust("1 hour")
          }
          yield* engine.contacts.update(ws, ids[0]!, { title: "CEO", nickname: null }, null)
          const deal = yield* engine.deals.create(ws, { name: "Deal", pipeline_id: sales["id"], contact_ids: ids.slice(0, 3) })
          const dealId = deal.data["id"] as string
          yield* engine.deals.moveStage(ws, dealId, { stage_id: stages[2], reason: "call" }, null)
          yield* engine.deals.update(ws, dealId, { stage_id: stages[4], value: 12 }, null)
          yield* engine.contacts.delete(ws, ids[1]!, null)
          yield* engine.contacts.delete(ws, ids[2]!, null)
          yield* engine.contacts.restore(ws, ids[2]!)
          yield* engine.pipelines.create(ws, { name: "Other", stages: [{ name: "One" }] })
        }
        yield* TestClock.adjust("31 days")
        expect(yield* engine.purgeExpired).toBe(2)

        const before = yield* snapshot
        const progress: Array<number> = []
        const result = yield* rebuildDocuments((p) => progress.push(p.events))
        const after = yield* snapshot
        expect(after).toEqual(before)
        expect(before.length).toBeGreaterThan(30)
        expect(result.events).toBe(progress[progress.length - 1])
        // and the engine serves the rebuilt documents
        expect((yield* engine.contacts.list(ctxOf("acme"), { search: "nick 5" })).data).toHaveLength(1)
      })
    )
  )
})
