import { DeliveryQueue, type DeliveryQueueService, Storage, type StorageService } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { engineOver } from "../support/engine.js"
import { pgStorageLayer } from "../support/pg.js"

const DAY = 86_400_000
const start = Date.parse("2026-03-01T00:00:00.000Z")

/**
 * An activity in the trash is purged once the 30-day window is over, on engine time: its subject
 * and body leave the log and the feed (an activity.purged tombstone remains), and restore, get and
 * history are 404. One deleted later stays restorable; the records it linked are untouched.
 */
const purgeActivities = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const engine = yield* engineOver({ storage, queue })
    const ctx = { workspaceId: `acts_${Date.now().toString(36)}`, requestId: null, actor: "test" }
    const contact = (yield* engine.contacts.create(ctx, { email: "linked@x.io" })).data["id"] as string
    const gone = (yield* engine.activities.create(ctx, {
      type: "call",
      subject: "Gonesubject",
      body: "Gonebody",
      contact_ids: [contact]
    })).data["id"] as string
    yield* engine.activities.update(ctx, gone, { body: "Gonebody two", done: true }, null)
    const kept = (yield* engine.activities.create(ctx, { type: "note", subject: "Kept", contact_ids: [contact] })).data["id"] as string
    yield* engine.activities.delete(ctx, gone, null)
    yield* TestClock.adjust(10 * DAY)
    yield* engine.activities.delete(ctx, kept, null)

    // Exactly 30 days after its deletion it is still recoverable: nothing is purged.
    yield* TestClock.adjust(20 * DAY)
    expect(yield* engine.purgeExpired).toBe(0)
    yield* TestClock.adjust(1)
    expect(yield* engine.purgeExpired).toBe(1)

    expect((yield* Effect.flip(engine.activities.restore(ctx, gone)))._tag).toBe("NotFound")
    expect((yield* Effect.flip(engine.activities.get(ctx, gone)))._tag).toBe("NotFound")
    expect((yield* Effect.flip(engine.activities.history(ctx, gone, {})))._tag).toBe("NotFound")
    const stream = yield* storage.readStream(gone)
    expect(stream.map((e) => e.type)).toEqual(["activity.created", "activity.updated", "activity.deleted", "activity.purged"])
    expect(stream.slice(0, 3).map((e) => e.data)).toEqual([{ redacted: true }, { redacted: true }, { redacted: true }])
    const feed = (yield* engine.events.list(ctx, { types: "activity.*", limit: "1000" })).data
    expect(feed.filter((e) => e["type"] === "activity.purged").map((e) => e["data"])).toEqual([{ id: gone }])
    const text = JSON.stringify([stream, feed])
    for (const value of ["Gonesubject", "Gonebody"]) expect({ value, found: text.includes(value) }).toEqual({ value, found: false })

    expect((yield* engine.trash.list(ctx, { type: "activity" })).data.map((t) => t["id"])).toEqual([kept])
    expect((yield* engine.activities.restore(ctx, kept)).data).toMatchObject({ subject: "Kept", contact_ids: [contact] })
    expect((yield* engine.contacts.get(ctx, contact, null)).data["email"]).toBe("linked@x.io")
    expect(yield* engine.purgeExpired).toBe(0)
  }).pipe(Effect.scoped)

describe("purge of activities past the recovery window", () => {
  it.effect("memory storage", () => Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => purgeActivities(storage, queue)))

  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL", () =>
      Effect.gen(function* () {
        yield* purgeActivities(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
