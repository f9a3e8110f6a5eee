import { DeliveryQueue, type DeliveryQueueService, type JsonObject, Storage, type StorageService, type StoredEvent } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { pgStorageLayer } from "../support/pg.js"
import { engineOver } from "../support/engine.js"

/**
 * README: "Purging removes the documents and replaces the data of the record's earlier events with
 * `{"redacted": true}`; the event types and a `*.purged` tombstone remain." Read back from the log
 * itself, on each storage.
 */

const DAY = 86_400_000
const start = Date.parse("2026-02-01T00:00:00.000Z")
// Everything personal the purged contact and deal carry; none of it may stay anywhere in the log.
const personal = ["gone.person@x.io", "Gonefirst", "Gonelast", "+49 30 1234567", "Chief gardener", "Gonenick", "Gonedeal", "Gonereason"]

const logOf = (storage: StorageService, workspaceId: string) =>
  Effect.map(storage.readLog({ after: 0, limit: 10_000 }), (events) => events.filter((e) => e.metadata.workspaceId === workspaceId))

/**
 * An event without its data and the payload it was announced with (which shows the record too):
 * what purging must leave exactly as it was.
 */
const frame = ({ data: _, metadata: { payload: _payload, ...metadata }, ...rest }: StoredEvent) => ({ ...rest, metadata })

const purgeAndReadTheLog = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const engine = yield* engineOver({ storage, queue })
    const ctx = { workspaceId: `redact_${Date.now().toString(36)}`, requestId: "req_1", actor: "test" }
    yield* engine.customFields.create(ctx, { object: "contact", key: "nickname", label: "Nickname", type: "text" })
    const kept = (yield* engine.contacts.create(ctx, { email: "kept@x.io", first_name: "Kept" })).data["id"] as string
    const gone = (yield* engine.contacts.create(ctx, {
      email: "gone.person@x.io",
      first_name: "Gonefirst",
      last_name: "Gonelast",
      phone: "+49 30 1234567",
      nickname: "Gonenick"
    })).data["id"] as string
    yield* engine.contacts.update(ctx, gone, { title: "Chief gardener" }, null)
    const sales = (yield* engine.pipelines.list(ctx)).data[0]!
    const stages = (sales["stages"] as ReadonlyArray<JsonObject>).map((s) => s["id"] as string)
    const deal = (yield* engine.deals.create(ctx, { name: "Gonedeal", pipeline_id: sales["id"], contact_ids: [gone, kept] })).data[
      "id"
    ] as string
    yield* engine.deals.moveStage(ctx, deal, { stage_id: stages[2], reason: "Gonereason" }, null)
    yield* engine.deals.update(ctx, deal, { value: 500 }, null)
    yield* engine.contacts.delete(ctx, gone, null)
    yield* engine.deals.delete(ctx, deal, null)

    const before = yield* logOf(storage, ctx.workspaceId)
    expect(JSON.stringify(before)).toContain("Gonereason")
    yield* TestClock.adjust(30 * DAY + 1)
    expect(yield* engine.purgeExpired).toBe(2)
    const purgedAt = new Date(start + 30 * DAY + 1).toISOString()
    const after = yield* logOf(storage, ctx.workspaceId)

    // The same events in the same places, with the same types and metadata; two tombstones after them.
    expect(after.slice(0, before.length).map(frame)).toEqual(before.map(frame))
    expect(after.slice(before.length).map((e) => ({ streamId: e.streamId, type: e.type, data: e.data }))).toEqual([
      { streamId: gone, type: "contact.purged", data: { at: purgedAt } },
      { streamId: deal, type: "deal.purged", data: { at: purgedAt } }
    ])
    // The purged records' earlier events carry exactly {"redacted": true}; every other event is untouched.
    before.forEach((event, i) => {
      const purged = event.streamId === gone || event.streamId === deal
      expect({ type: event.type, data: after[i]!.data }).toEqual({ type: event.type, data: purged ? { redacted: true } : event.data })
    })
    // The announced payloads go with the data of the purged records' events, and stay on the others'.
    before.forEach((event, i) => {
      const purged = event.streamId === gone || event.streamId === deal
      const announced = event.type.startsWith("contact.") || event.type.startsWith("deal.")
      expect({ type: event.type, announced: event.metadata.payload !== undefined }).toEqual({ type: event.type, announced })
      expect({ type: event.type, kept: after[i]!.metadata.payload !== undefined }).toEqual({ type: event.type, kept: announced && !purged })
    })
    expect(before.filter((e) => e.streamId === gone).map((e) => e.type)).toEqual(["contact.created", "contact.updated", "contact.deleted"])
    expect(before.filter((e) => e.streamId === deal).map((e) => e.type)).toEqual([
      "deal.created",
      "deal.stage_changed",
      "deal.updated",
      "deal.deleted"
    ])
    // Reading one stream gives the same events as the log.
    expect(yield* storage.readStream(gone)).toEqual(after.filter((e) => e.streamId === gone))
    expect(yield* storage.readStream(deal)).toEqual(after.filter((e) => e.streamId === deal))
    // The change feed shows what is left: the purged records' events redacted, deletes and tombstones by id.
    // Read until it shows them (test/support/feedPolling.ts): a transaction of another test that
    // ends during a read lowers that one read's bound (storage-pg's feedBound.ts), and the next read
    // has a snapshot of its own. No pause between reads: this test runs on the TestClock.
    const fed = after.filter((e) => e.type.startsWith("contact.") || e.type.startsWith("deal.")).map((e) => e.metadata.eventId)
    let feed: ReadonlyArray<JsonObject> = []
    for (let read = 0; read < 100 && feed.length < fed.length; read++) feed = (yield* engine.events.list(ctx, { limit: "1000" })).data
    expect(feed.map((e) => e["id"])).toEqual(fed)
    const shownOf = (streamId: string) =>
      feed
        .filter((_, i) => after.find((e) => e.metadata.eventId === feed[i]!["id"])!.streamId === streamId)
        .map((e) => [e["type"], e["data"]])
    expect(shownOf(gone)).toEqual([
      ["contact.created", { redacted: true }],
      ["contact.updated", { redacted: true }],
      ["contact.deleted", { id: gone }],
      ["contact.purged", { id: gone }]
    ])
    expect(shownOf(deal).map(([type]) => type)).toEqual([
      "deal.created",
      "deal.stage_changed",
      "deal.updated",
      "deal.deleted",
      "deal.purged"
    ])
    expect(JSON.stringify(feed)).toContain("kept@x.io")
    const text = JSON.stringify([after, feed])
    for (const value of personal) expect({ value, found: text.includes(value) }).toEqual({ value, found: false })
    expect(text).toContain("kept@x.io")
  }).pipe(Effect.scoped)

describe("purge redacts the log", () => {
  it.effect("memory storage: earlier events become {redacted: true}, a tombstone follows", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => purgeAndReadTheLog(storage, queue))
  )

  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL: earlier events become {redacted: true}, a tombstone follows", () =>
      Effect.gen(function* () {
        yield* purgeAndReadTheLog(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
