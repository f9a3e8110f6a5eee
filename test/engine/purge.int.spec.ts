import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { ctxOf, withEngine } from "../support/engine.js"

const ws = ctxOf("acme")

describe("engine: purge after the 30-day recovery window", () => {
  it.effect("purges records deleted more than 30 days ago, leaving a tombstone and no personal data", () =>
    withEngine((engine, storage) =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
        const old = yield* engine.contacts.create(ws, { email: "gone@x.io", first_name: "Gone" })
        const oldId = old.data["id"] as string
        const sales = (yield* engine.pipelines.list(ws)).data[0]!
        const deal = yield* engine.deals.create(ws, { name: "Old deal", pipeline_id: sales["id"] })
        const dealId = deal.data["id"] as string
        yield* engine.contacts.delete(ws, oldId, null)
        yield* engine.deals.delete(ws, dealId, null)
        yield* TestClock.adjust("20 days")
        const recent = yield* engine.contacts.create(ws, { email: "recent@x.io" })
        const recentId = recent.data["id"] as string
        yield* engine.contacts.delete(ws, recentId, null)

        // exactly 30 days after deletion the record is still recoverable, so nothing is purged
        yield* TestClock.adjust("10 days")
        expect(yield* engine.purgeExpired).toBe(0)

        yield* TestClock.adjust("1 hour")
        expect(yield* engine.purgeExpired).toBe(2)
        expect((yield* Effect.flip(engine.contacts.restore(ws, oldId)))._tag).toBe("NotFound")
        expect((yield* Effect.flip(engine.deals.restore(ws, dealId)))._tag).toBe("NotFound")
        // A purged record has no history: its erased values must not come back through it.
        expect((yield* Effect.flip(engine.contacts.history(ws, oldId, {})))._tag).toBe("NotFound")
        expect((yield* Effect.flip(engine.deals.history(ws, dealId, {})))._tag).toBe("NotFound")
        // Nor a past: as of a time it was live, it is gone too.
        expect((yield* Effect.flip(engine.contacts.getAsOf(ws, oldId, "2026-01-01T00:00:00.000Z")))._tag).toBe("NotFound")
        // One still in the trash keeps its history.
        expect((yield* engine.contacts.history(ws, recentId, {})).data.map((e) => e["type"])).toEqual([
          "contact.created",
          "contact.deleted"
        ])
        expect((yield* engine.trash.list(ws, { type: "contact" })).data.map((t) => t["id"])).toEqual([recentId])

        const stream = yield* storage.readStream(oldId)
        expect(stream.map((e) => e.type)).toEqual(["contact.created", "contact.deleted", "contact.purged"])
        expect(JSON.stringify(stream)).not.toContain("gone@x.io")
        expect(JSON.stringify(stream)).not.toContain("Gone")
        // the email is free again
        yield* engine.contacts.create(ws, { email: "gone@x.io" })
        // the 20-day-old deletion is still restorable
        expect((yield* engine.contacts.restore(ws, recentId)).data["email"]).toBe("recent@x.io")
        expect(yield* engine.purgeExpired).toBe(0)
      })
    )
  )
})
