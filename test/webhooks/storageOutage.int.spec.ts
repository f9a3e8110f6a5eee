import {
  type Commit,
  DeliveryQueue,
  Engine,
  EngineLive,
  IdsLive,
  type RequestContext,
  runDeliveryWorker,
  Storage,
  StorageUnavailable,
  WebhookConfig,
  WebhookTransport
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Context, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"

// Regression: a delivery claimed just before the database went away kept its lease (timeout +
// 30 s) when the worker could not read its webhook or record its attempt, so it was sent again,
// late, once the lease ran out (seen in test/host/databaseRestart.e2e.pg.spec.ts and
// connectionsDropped.e2e.pg.spec.ts). The worker now tries those steps again while storage is
// unavailable, and records only on the version it claimed. Here the lease is ten minutes: a
// delivery left to its lease would never finish within the test.

const ctx: RequestContext = { workspaceId: "acme", requestId: null, actor: "test" }
const outage = () => new StorageUnavailable({ message: "PostgreSQL is unavailable: connection refused" })

const faults = { webhookReads: 0, recordsRefused: 0, recordsAppliedButLost: 0 }
let posts = 0
let recorded = 0

const records = (commit: Commit) => commit.streams.some((s) => s.events.some((e) => e.type === "delivery.attempted"))

const flakyStorage = Layer.effectContext(
  Effect.map(MemoryStorage.makeWithQueue, ({ queue, storage }) =>
    Context.make(Storage, {
      ...storage,
      // Decided when run, not when built, like a real storage's effects: a retry runs them again.
      getDocument: (collection, workspaceId, id) =>
        Effect.suspend(() => {
          if (collection === "webhook" && faults.webhookReads > 0) {
            faults.webhookReads--
            return Effect.fail(outage())
          }
          return storage.getDocument(collection, workspaceId, id)
        }),
      commit: (commit) =>
        Effect.suspend(() => {
          if (records(commit) && faults.recordsRefused > 0) {
            faults.recordsRefused--
            return Effect.fail(outage())
          }
          if (records(commit) && faults.recordsAppliedButLost > 0) {
            faults.recordsAppliedButLost--
            // Committed, but the answer is lost with the connection.
            return storage.commit(commit).pipe(
              Effect.tap(() => Effect.sync(() => recorded++)),
              Effect.andThen(Effect.fail(outage()))
            )
          }
          return storage.commit(commit).pipe(Effect.tap(() => Effect.sync(() => records(commit) && recorded++)))
        })
    }).pipe(Context.add(DeliveryQueue, queue))
  )
)

const countingTransport = Layer.succeed(WebhookTransport, {
  post: () =>
    Effect.sync(() => {
      posts++
      // The first attempt fails, so the delivery stays pending after it: recording it twice would count.
      return { status: posts === 1 ? 500 : 200, retryAfterSeconds: null }
    }),
  checkTarget: () => Effect.void
})

const layer = EngineLive.pipe(
  Layer.provideMerge(flakyStorage),
  Layer.provideMerge(IdsLive),
  Layer.provideMerge(WebhookConfig.layer({ allowInsecure: true, retrySchedule: [1_500, 1_500] })),
  Layer.provideMerge(countingTransport)
)

describe("a delivery claimed while storage goes away for a moment", () => {
  it("has its attempt recorded once when storage is back, and its retry sent without waiting for its lease", async () => {
    const delivery = await Effect.runPromise(
      Effect.gen(function* () {
        const engine = yield* Engine
        yield* runDeliveryWorker({ owner: "worker-1", pollMillis: 100, leaseMillis: 600_000 }).pipe(Effect.forkScoped)
        const webhook = yield* engine.webhooks.create(ctx, { url: "http://127.0.0.1:9/hook", events: ["contact.created"] })
        const webhookId = String(webhook.data["id"])
        // The webhook cannot be read three times, then the first attempt's record is refused twice,
        // then committed with its answer lost: an attempt that ended at any of these steps would hold
        // its lease, and one recorded again would count twice.
        Object.assign(faults, { webhookReads: 3, recordsRefused: 2, recordsAppliedButLost: 1 })
        yield* engine.contacts.create(ctx, { email: "outage@example.com" })

        // Watched without reading through the engine, whose reads would meet the faults meant for the worker.
        for (let i = 0; i < 300 && (recorded < 2 || Object.values(faults).some((n) => n > 0)); i++) yield* Effect.sleep("50 millis")
        // A second record or send of that delivery, if there were one, would come before the worker is
        // done with the next event's delivery: a marker, due after it, whose record is awaited.
        yield* engine.contacts.create(ctx, { email: "marker@example.com" })
        for (let i = 0; i < 300 && recorded < 3; i++) yield* Effect.sleep("50 millis")
        const listed = (yield* engine.webhooks.deliveries(ctx, webhookId, {})).data
        const marker = listed.find((d) => d["status"] === "succeeded" && d["attempt_count"] === 1)
        expect(marker, "the marker delivery recorded").toBeDefined()
        const first = listed.find((d) => d !== marker)
        return (yield* engine.webhooks.delivery(ctx, webhookId, String(first?.["id"]))).data
      }).pipe(Effect.scoped, Effect.provide(layer))
    )

    expect(faults).toEqual({ webhookReads: 0, recordsRefused: 0, recordsAppliedButLost: 0 })
    expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 2, attempts: [{ status_code: 500 }, { status_code: 200 }] })
    // The outage's delivery twice (a failed attempt, then its retry) and the marker once.
    expect(posts).toBe(3)
    expect(recorded).toBe(3)
  }, 30_000)
})
