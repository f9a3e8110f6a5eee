import {
  type Commit,
  DeliveryQueue,
  type DeliveryQueueService,
  type JsonObject,
  Storage,
  type StorageService,
  type StoredDocument
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { acceptingTargets, engineOver } from "../support/engine.js"
import { pgStorageLayer } from "../support/pg.js"

/**
 * A person's export and erasure (API.md, "Privacy: export and erasure") in the engine, on each
 * storage: what the export holds of a contact and the records around it; what the erasure leaves
 * of them (the log, the feed, the deliveries' payloads, the links of deals and activities, the
 * counts it answers); and that it commits deliveries a page at a time, each record on its own.
 */

const start = Date.parse("2026-05-01T00:00:00.000Z")
const personal = ["erase.me@x.io", "Erasefirst", "Eraselast", "+44 20 7946 0958", "Erasenick", "Erasetitle"]

const ofWorkspace = (storage: StorageService, workspaceId: string) =>
  Effect.map(storage.readLog({ after: 0, limit: 100_000 }), (events) => events.filter((e) => e.metadata.workspaceId === workspaceId))

const deliveriesOf = (storage: StorageService, workspaceId: string, streamId: string) =>
  storage.queryDocuments("delivery", workspaceId, {
    where: { _tag: "Compare", field: { name: "event_stream_id", type: "id" }, op: "eq", value: streamId },
    scope: "live",
    sort: { field: { name: "id", type: "id" }, direction: "asc" },
    after: null,
    limit: 1000
  })

const idOf = (versioned: { readonly data: JsonObject }) => versioned.data["id"] as string

const exportAndErase = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const engine = yield* engineOver({ storage, queue }, { webhooks: acceptingTargets })
    const ctx = {
      workspaceId: `erase_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`,
      requestId: null,
      actor: "test"
    }
    yield* engine.webhooks.create(ctx, { url: "https://hooks.example/all", events: ["*"] })
    yield* engine.customFields.create(ctx, { object: "contact", key: "nickname", label: "Nickname", type: "text" })
    const company = idOf(yield* engine.companies.create(ctx, { name: "Acme" }))
    const kept = idOf(yield* engine.contacts.create(ctx, { email: "kept@x.io", first_name: "Keptfirst" }))
    const gone = idOf(
      yield* engine.contacts.create(ctx, {
        email: "erase.me@x.io",
        first_name: "Erasefirst",
        last_name: "Eraselast",
        phone: "+44 20 7946 0958",
        nickname: "Erasenick",
        company_ids: [company]
      })
    )
    yield* engine.contacts.update(ctx, gone, { title: "Erasetitle" }, null)
    const pipeline = (yield* engine.pipelines.list(ctx)).data[0]!["id"]
    const shared = idOf(yield* engine.deals.create(ctx, { name: "Shared deal", pipeline_id: pipeline, contact_ids: [gone, kept] }))
    const trashedDeal = idOf(yield* engine.deals.create(ctx, { name: "Trashed deal", pipeline_id: pipeline, contact_ids: [gone] }))
    yield* engine.deals.delete(ctx, trashedDeal, null)
    const withKept = idOf(yield* engine.activities.create(ctx, { type: "call", subject: "Call", contact_ids: [gone, kept] }))
    const alone = idOf(yield* engine.activities.create(ctx, { type: "note", subject: "About them", contact_ids: [gone] }))
    const withDeal = idOf(
      yield* engine.activities.create(ctx, { type: "task", subject: "Follow up", contact_ids: [gone], deal_ids: [shared] })
    )
    yield* engine.activities.delete(ctx, withDeal, null)

    // The export: everything held about the person, live.
    const exported = yield* engine.contacts.exportPerson(ctx, gone)
    expect(Object.keys(exported)).toEqual([
      "contact",
      "deleted_at",
      "history",
      "activities",
      "deal_ids",
      "company_ids",
      "delivery_ids",
      "exported_at"
    ])
    expect(exported["contact"]).toMatchObject({ id: gone, email: "erase.me@x.io", nickname: "Erasenick", deal_ids: [shared] })
    expect(exported["deleted_at"]).toBeNull()
    const history = exported["history"] as ReadonlyArray<JsonObject>
    expect(history.map((entry) => entry["type"])).toEqual(["contact.created", "contact.updated"])
    expect(history[1]!["changes"]).toEqual([{ field: "title", from: null, to: "Erasetitle" }])
    expect((exported["activities"] as ReadonlyArray<JsonObject>).map((a) => a["id"])).toEqual([withKept, alone, withDeal])
    expect(exported["deal_ids"]).toEqual([shared, trashedDeal].sort())
    expect(exported["company_ids"]).toEqual([company])
    const deliveries = (yield* deliveriesOf(storage, ctx.workspaceId, gone)).map((d) => d.id)
    expect(deliveries).toHaveLength(2)
    expect(exported["delivery_ids"]).toEqual(deliveries)

    // In the trash it is exported the same, with when it was deleted.
    yield* engine.contacts.delete(ctx, gone, null)
    const trashed = yield* engine.contacts.exportPerson(ctx, gone)
    expect(trashed["deleted_at"]).toBe(new Date(start).toISOString())
    expect((trashed["history"] as ReadonlyArray<JsonObject>).map((entry) => entry["type"])).toEqual([
      "contact.created",
      "contact.updated",
      "contact.deleted"
    ])
    expect(trashed["deal_ids"]).toEqual(exported["deal_ids"])
    const withDelete = (yield* deliveriesOf(storage, ctx.workspaceId, gone)).map((d) => d.id)
    expect(withDelete).toHaveLength(3)
    expect(trashed["delivery_ids"]).toEqual(withDelete)

    const before = yield* ofWorkspace(storage, ctx.workspaceId)
    expect(JSON.stringify(before)).toContain("Erasenick")
    const erased = yield* engine.contacts.erase(ctx, gone)
    expect(erased).toEqual({
      id: gone,
      erased_at: new Date(start).toISOString(),
      redacted: { events: 3, feed_entries: 3, deliveries: 3, stored_answers: 0 },
      unlinked: { deals: 2, companies: 1, activities: 2 },
      erased_activities: 1
    })

    // Gone from every read, and once only.
    for (const read of [
      engine.contacts.get(ctx, gone, null),
      engine.contacts.history(ctx, gone, {}),
      engine.contacts.exportPerson(ctx, gone),
      engine.contacts.erase(ctx, gone),
      engine.contacts.restore(ctx, gone),
      engine.activities.get(ctx, alone)
    ] as const) {
      expect((yield* Effect.flip(read as Effect.Effect<unknown, { readonly _tag: string }>))._tag).toBe("NotFound")
    }
    expect((yield* engine.trash.list(ctx, { type: "contact" })).data).toEqual([])
    expect((yield* engine.contacts.list(ctx, { search: "Erasefirst" })).data).toEqual([])

    // The log: the contact's events redacted, a tombstone with no personal data after them.
    const stream = yield* storage.readStream(gone)
    expect(stream.map((e) => [e.type, e.data])).toEqual([
      ["contact.created", { redacted: true }],
      ["contact.updated", { redacted: true }],
      ["contact.deleted", { redacted: true }],
      ["contact.erased", { at: new Date(start).toISOString() }]
    ])
    // The deals and activities that linked it keep its id in their history only.
    const sharedDeal = yield* engine.deals.get(ctx, shared)
    expect(sharedDeal.data["contact_ids"]).toEqual([kept])
    const dealHistory = (yield* engine.deals.history(ctx, shared, {})).data
    expect(dealHistory.at(-1)).toMatchObject({
      type: "deal.contact_unlinked",
      changes: [{ field: "contact_ids", from: [gone, kept], to: [kept] }]
    })
    expect((yield* storage.getDocument("deal", ctx.workspaceId, trashedDeal))?.data["contact_ids"]).toEqual([])
    expect((yield* engine.activities.get(ctx, withKept)).data["contact_ids"]).toEqual([kept])
    expect((yield* storage.getDocument("activity", ctx.workspaceId, withDeal))?.data).toMatchObject({ contact_ids: [], deal_ids: [shared] })
    expect(yield* storage.readStream(alone)).toEqual(expect.arrayContaining([expect.objectContaining({ type: "activity.purged" })]))
    expect((yield* engine.companies.get(ctx, company, null)).data["contact_ids"]).toEqual([])

    // The deliveries that carried it: redacted, the pending ones cancelled; the tombstone's is announced.
    const after = yield* deliveriesOf(storage, ctx.workspaceId, gone)
    const payloads = after.map((d) => [d.data["event_type"], d.data["payload_data"], d.data["status"]])
    expect(payloads).toEqual(
      expect.arrayContaining([
        ["contact.created", { redacted: true }, "cancelled"],
        ["contact.updated", { redacted: true }, "cancelled"],
        ["contact.deleted", { redacted: true }, "cancelled"],
        ["contact.erased", { id: gone }, "pending"]
      ])
    )
    expect(after).toHaveLength(4)

    // The feed: the contact's earlier events redacted (its delete names only its id), and the tombstone.
    // Read until it shows the tombstone (test/support/feedPolling.ts says why one read may stop short).
    let feed: ReadonlyArray<JsonObject> = []
    for (let read = 0; read < 100 && !feed.some((e) => e["type"] === "contact.erased"); read++) {
      feed = (yield* engine.events.list(ctx, { limit: "1000" })).data
    }
    const eventIds = new Set(stream.map((e) => e.metadata.eventId))
    expect(feed.filter((e) => eventIds.has(e["id"] as string)).map((e) => [e["type"], e["data"]])).toEqual([
      ["contact.created", { redacted: true }],
      ["contact.updated", { redacted: true }],
      ["contact.deleted", { id: gone }],
      ["contact.erased", { id: gone }]
    ])
    // The unlinks are no feed entries: a deal or an activity's contacts changed because a contact left.
    expect(feed.filter((e) => String(e["type"]).endsWith(".contact_unlinked"))).toEqual([])

    // Nothing personal anywhere in the workspace's log, the feed or the documents read back.
    const text = JSON.stringify([
      yield* ofWorkspace(storage, ctx.workspaceId),
      feed,
      after,
      yield* engine.contacts.list(ctx, {}),
      yield* engine.deals.list(ctx, {}),
      yield* engine.activities.list(ctx, {})
    ])
    for (const value of personal) expect({ value, found: text.includes(value) }).toEqual({ value, found: false })
    expect(text).toContain("kept@x.io")

    // The email is free again.
    expect((yield* engine.contacts.create(ctx, { email: "erase.me@x.io" })).data["email"]).toBe("erase.me@x.io")

    // A contact the trash window purged is not found either.
    const old = idOf(yield* engine.contacts.create(ctx, { email: "old@x.io" }))
    yield* engine.contacts.delete(ctx, old, null)
    yield* TestClock.adjust(30 * 86_400_000 + 1)
    expect(yield* engine.purgeExpired).toBeGreaterThanOrEqual(1)
    expect((yield* Effect.flip(engine.contacts.erase(ctx, old)))._tag).toBe("NotFound")
    expect((yield* Effect.flip(engine.contacts.exportPerson(ctx, old)))._tag).toBe("NotFound")
  }).pipe(Effect.scoped)

/** A storage that tells what each commit carried. */
const counting = (storage: StorageService, commits: Array<Commit>): StorageService => ({
  ...storage,
  commit: (commit) =>
    Effect.andThen(
      Effect.sync(() => commits.push(commit)),
      storage.commit(commit)
    )
})

const manyDeliveries = (inner: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const commits: Array<Commit> = []
    const storage = counting(inner, commits)
    const engine = yield* engineOver({ storage, queue }, { webhooks: acceptingTargets })
    const ctx = {
      workspaceId: `erase_many_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`,
      requestId: null,
      actor: "test"
    }
    for (const host of ["a", "b", "c"])
      yield* engine.webhooks.create(ctx, { url: `https://${host}.example/hook`, events: ["contact.created", "contact.updated"] })
    const gone = idOf(yield* engine.contacts.create(ctx, { email: "many@x.io", first_name: "Manyfirst" }))
    for (let i = 0; i < 80; i++) yield* engine.contacts.update(ctx, gone, { title: `Title ${i}` }, null)
    const held: ReadonlyArray<StoredDocument> = yield* deliveriesOf(storage, ctx.workspaceId, gone)
    expect(held).toHaveLength(243)

    commits.length = 0
    const erased = yield* engine.contacts.erase(ctx, gone)
    expect(erased["redacted"]).toEqual({ events: 81, feed_entries: 81, deliveries: 243, stored_answers: 0 })
    // Deliveries a hundred per commit ahead of the contact's own, which redacts its stream (and any made meanwhile).
    const redacting = commits.filter((commit) => (commit.redactStreams ?? []).length > 0).map((commit) => commit.redactStreams!.length)
    expect(redacting).toEqual([100, 100, 43, 1])
    expect(Math.max(...commits.map((commit) => commit.documents.length))).toBeLessThanOrEqual(103)
    for (const delivery of yield* deliveriesOf(storage, ctx.workspaceId, gone)) {
      if (delivery.data["event_type"] !== "contact.erased") expect(delivery.data["payload_data"]).toEqual({ redacted: true })
    }
    expect(JSON.stringify(yield* ofWorkspace(storage, ctx.workspaceId))).not.toContain("Manyfirst")
  }).pipe(Effect.scoped)

describe("a person's export and erasure", () => {
  it.effect("memory storage: exported whole, erased everywhere, counted", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => exportAndErase(storage, queue))
  )
  it.effect("memory storage: a contact with many deliveries is erased a page of deliveries per commit", () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => manyDeliveries(storage, queue))
  )

  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect("PostgreSQL: exported whole, erased everywhere, counted", () =>
      Effect.gen(function* () {
        yield* exportAndErase(yield* Storage, yield* DeliveryQueue)
      })
    )
    it.effect("PostgreSQL: a contact with many deliveries is erased a page of deliveries per commit", () =>
      Effect.gen(function* () {
        yield* manyDeliveries(yield* Storage, yield* DeliveryQueue)
      })
    )
  })
})
