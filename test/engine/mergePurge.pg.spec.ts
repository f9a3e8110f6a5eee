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
 * A merged contact is in the trash with the survivor's id, and the purge takes it once the 30-day
 * window is over, on engine time, like any deleted record: then its id is not found (no longer sent
 * to the survivor), and the survivor keeps what it took. Past the window it cannot be unmerged.
 */
const purgeMerged = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const engine = yield* engineOver({ storage, queue })
    const ctx = { workspaceId: `merge_${Date.now().toString(36)}`, requestId: null, actor: "test" }
    const survivor = (yield* engine.contacts.create(ctx, { email: "s@purge.io" })).data["id"] as string
    const merged = (yield* engine.contacts.create(ctx, { email: "m@purge.io", title: "Kept title" })).data["id"] as string
    yield* engine.contacts.merge(ctx, survivor, { merge_ids: [merged] })
    const trash = (yield* engine.trash.list(ctx, { type: "contact" })).data
    expect(trash.map((item) => [item["id"], item["merged_into"]])).toEqual([[merged, survivor]])
    expect(yield* Effect.flip(engine.contacts.get(ctx, merged, null))).toMatchObject({ _tag: "NotFound", mergedInto: survivor })

    yield* TestClock.adjust(30 * DAY)
    expect(yield* engine.purgeExpired).toBe(0)
    yield* TestClock.adjust(1)
    // Past the window, an unmerge is refused before the purge has run, as a restore is.
    const late = yield* Effect.flip(engine.contacts.unmerge(ctx, survivor, { contact_id: merged }))
    expect({ _tag: late._tag, message: late.message }).toEqual({
      _tag: "ValidationError",
      message: `contact_id must be a contact merged into ${survivor} within the last 30 days`
    })
    expect(yield* engine.purgeExpired).toBe(1)

    const gone = yield* Effect.flip(engine.contacts.get(ctx, merged, null))
    expect({ _tag: gone._tag, mergedInto: (gone as { mergedInto?: string }).mergedInto }).toEqual({
      _tag: "NotFound",
      mergedInto: undefined
    })
    expect((yield* engine.trash.list(ctx, { type: "contact" })).data).toEqual([])
    const stream = yield* storage.readStream(merged)
    expect(stream.map((e) => e.type)).toEqual(["contact.created", "contact.merged_into", "contact.purged"])
    expect((yield* engine.contacts.get(ctx, survivor, null)).data["title"]).toBe("Kept title")
  }).pipe(Effect.scoped)

describe("purge of merged contacts past the recovery window", () => {
  it.effect("memory storage", () => Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => purgeMerged(storage, queue)))

  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL", () =>
      Effect.gen(function* () {
        yield* purgeMerged(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
