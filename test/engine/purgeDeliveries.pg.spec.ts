import { DeliveryQueue, type DeliveryQueueService, type JsonObject, Storage, type StorageService } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { acceptingTargets, engineOver } from "../support/engine.js"
import { pgStorageLayer } from "../support/pg.js"

/**
 * A purge erases the record's personal data from the payloads of the deliveries its events were
 * announced with (API.md: purged data leaves the event log; a delivery's payload is the record as
 * it was). No worker runs: the deliveries of one webhook are cancelled by its deletion before the
 * purge, those of the other are still pending at the purge, which cancels them.
 */

const DAY = 86_400_000
const start = Date.parse("2026-03-01T00:00:00.000Z")
const personal = ["erased.person@x.io", "Erasedfirst", "Erasedtitle"]

const purgeAndReadDeliveries = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const engine = yield* engineOver({ storage, queue }, { webhooks: acceptingTargets })
    const ctx = { workspaceId: `erase_${Date.now().toString(36)}`, requestId: null, actor: "test" }
    const removed = (yield* engine.webhooks.create(ctx, { url: "https://a.example/hook", events: ["*"] })).data["id"] as string
    const active = (yield* engine.webhooks.create(ctx, { url: "https://b.example/hook", events: ["*"] })).data["id"] as string
    const kept = (yield* engine.contacts.create(ctx, { email: "kept@x.io", first_name: "Keptfirst" })).data["id"] as string
    const gone = (yield* engine.contacts.create(ctx, { email: "erased.person@x.io", first_name: "Erasedfirst" })).data["id"] as string
    yield* engine.contacts.update(ctx, gone, { title: "Erasedtitle" }, null)
    yield* engine.contacts.delete(ctx, gone, null)
    // The first webhook's deliveries are cancelled now; the second's stay pending.
    yield* engine.webhooks.delete(ctx, removed, null)

    const deliveriesOf = (webhookId: string) =>
      Effect.flatMap(
        storage.queryDocuments("delivery", ctx.workspaceId, {
          where: { _tag: "Compare", field: { name: "webhook_id", type: "id" }, op: "eq", value: webhookId },
          scope: "live",
          sort: { field: { name: "id", type: "id" }, direction: "asc" },
          after: null,
          limit: 100
        }),
        (docs) => Effect.succeed(docs)
      )
    const beforeActive = yield* deliveriesOf(active)
    expect(beforeActive.filter((d) => d.data["event_stream_id"] === gone).map((d) => d.data["status"])).toEqual([
      "pending",
      "pending",
      "pending"
    ])

    yield* TestClock.adjust(30 * DAY + 1)
    expect(yield* engine.purgeExpired).toBe(1)

    const all = [...(yield* deliveriesOf(removed)), ...(yield* deliveriesOf(active))]
    const ofGone = all.filter((d) => d.data["event_stream_id"] === gone)
    const ofKept = all.filter((d) => d.data["event_stream_id"] === kept)
    expect(ofGone).toHaveLength(6)
    for (const delivery of ofGone) {
      expect(delivery.data["payload_data"]).toEqual({ redacted: true })
      // Pending ones were cancelled by the purge: a redacted delivery is never sent.
      expect(delivery.data["status"]).toBe("cancelled")
    }
    // The other contact's deliveries are as they were.
    expect(ofKept).toHaveLength(2)
    for (const delivery of ofKept) expect((delivery.data["payload_data"] as JsonObject)["contact"]).toMatchObject({ email: "kept@x.io" })

    // Nothing personal is left in the log, deliveries' events included; the kept contact is there.
    const log = JSON.stringify(
      (yield* storage.readLog({ after: 0, limit: 10_000 })).filter((e) => e.metadata.workspaceId === ctx.workspaceId)
    )
    for (const value of personal) expect({ value, found: log.includes(value) }).toEqual({ value, found: false })
    expect(log).toContain("kept@x.io")
    // Every event of the purged contact's deliveries is redacted, the cancellations of the purge too.
    for (const delivery of ofGone) {
      const events = yield* storage.readStream(delivery.id)
      const redacted = events.filter((e) => JSON.stringify(e.data) === JSON.stringify({ redacted: true }))
      expect(redacted.length).toBeGreaterThanOrEqual(events.length - 1)
    }

    // A replay of such a delivery sends the redacted payload, never the record.
    const replayed = yield* engine.webhooks.replay(ctx, active, ofGone.find((d) => d.data["webhook_id"] === active)!.id)
    const replay = yield* storage.getDocument("delivery", ctx.workspaceId, replayed.data["id"] as string)
    expect(replay?.data["payload_data"]).toEqual({ redacted: true })
  }).pipe(Effect.scoped)

describe("purge erases the record from its deliveries' payloads", () => {
  it.effect("memory storage", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => purgeAndReadDeliveries(storage, queue))
  )

  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL", () =>
      Effect.gen(function* () {
        yield* purgeAndReadDeliveries(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
