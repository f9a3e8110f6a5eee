import {
  DeliveryQueue,
  type DeliveryQueueService,
  type EngineService,
  IdsLive,
  type JsonObject,
  type RequestContext,
  runWebhookRecoveries,
  Storage,
  type StorageService
} from "@dealstream/core"
import { expect } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { acceptingTargets, engineOver } from "../support/engine.js"

/**
 * Recovery at the engine's level, with runners forked as hosts would run them and no delivery
 * worker: what a recovery schedules stays pending, where the test reads it. The scenarios run on
 * every storage: webhookRecovery.pg.spec.ts (memory, PostgreSQL) and
 * test/citus/purgeAndRecovery.citus.spec.ts.
 */

const DAY = 86_400_000
const start = Date.parse("2026-03-01T00:00:00.000Z")

export const runner = (
  storage: StorageService,
  queue: DeliveryQueueService,
  owner: string,
  options: { chunk?: number; staleMillis?: number } = {}
) =>
  runWebhookRecoveries({ owner, pollMillis: 5, ...options }).pipe(
    Effect.provide(Layer.mergeAll(Layer.succeed(Storage, storage), Layer.succeed(DeliveryQueue, queue), IdsLive, acceptingTargets))
  )

export const deliveriesOf = (storage: StorageService, ctx: RequestContext, webhookId: string) =>
  storage.queryDocuments("delivery", ctx.workspaceId, {
    where: { _tag: "Compare", field: { name: "webhook_id", type: "id" }, op: "eq", value: webhookId },
    scope: "live",
    sort: { field: { name: "id", type: "id" }, direction: "asc" },
    after: null,
    limit: 10_000
  })

/** Until the job is no longer running (the runners move it; TestClock wakes their polls). */
export const finished = (engine: EngineService, ctx: RequestContext, webhookId: string, jobId: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 20_000; i++) {
      const job = (yield* engine.webhooks.recovery(ctx, webhookId, jobId)).data
      if (job["status"] !== "running") return job
      yield* TestClock.adjust(5)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
    }
    throw new Error(`recovery ${jobId} still running`)
  })

/**
 * The storage as a runner about to be killed sees it: its first commit of the job's progress goes
 * through, and its next one is announced and then held, so that the kill lands mid-way through the
 * job (a chunk recorded, the next one decided and not stored) on every machine, however fast.
 */
const holdingSecondChunk = (storage: StorageService, jobId: string, held: Deferred.Deferred<void>): StorageService => {
  let chunks = 0
  return {
    ...storage,
    commit: (commit) =>
      Effect.suspend(() =>
        commit.streams.some((stream) => stream.streamId === jobId) && ++chunks === 2
          ? Effect.andThen(Deferred.succeed(held, undefined), Effect.never)
          : storage.commit(commit)
      )
  }
}

const ctxFor = (name: string): RequestContext => ({ workspaceId: `${name}_${Date.now().toString(36)}`, requestId: null, actor: "test" })

export const purgedAndCovered = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const engine = yield* engineOver({ storage, queue }, { webhooks: acceptingTargets })
    const ctx = ctxFor("recover")
    const since = new Date(start).toISOString()
    const contact = (email: string) => Effect.map(engine.contacts.create(ctx, { email }), (c) => c.data["id"] as string)
    const [c1, c2, c3] = [yield* contact("one@x.io"), yield* contact("two@x.io"), yield* contact("three@x.io")]
    yield* engine.contacts.update(ctx, c2, { title: "Later" }, null)
    yield* engine.contacts.delete(ctx, c3, null)
    yield* TestClock.adjust(30 * DAY + 1)
    expect(yield* engine.purgeExpired).toBe(1)
    // A webhook registered after the events: recovering backfills them.
    const webhook = (yield* engine.webhooks.create(ctx, {
      url: "https://hooks.example/in",
      events: ["contact.created", "contact.updated"]
    })).data["id"] as string
    const c4 = yield* contact("four@x.io") // announced by the outbox: pending, so not recovered again

    const job = (yield* engine.webhooks.recover(ctx, webhook, { since })).data
    expect(job).toMatchObject({ webhook_id: webhook, since, status: "running", scheduled: 0, skipped: 0, finished_at: null })
    // One recovery at a time per webhook.
    const second = yield* Effect.flip(engine.webhooks.recover(ctx, webhook, { since }))
    expect(second._tag).toBe("Conflict")

    yield* Effect.forkScoped(runner(storage, queue, "host-a"))
    const done = yield* finished(engine, ctx, webhook, job["id"] as string)
    // c1 and c2 created, c2 updated; c3's creation was purged, c4's already has a pending delivery.
    expect(done).toMatchObject({ status: "done", scheduled: 3, skipped: 2 })
    expect(typeof done["finished_at"]).toBe("string")

    const deliveries = (yield* deliveriesOf(storage, ctx, webhook)).map((d) => d.data)
    const recovered = deliveries.filter((d) => d["event_stream_id"] !== c4)
    // In the log's order, each with its position, and the record as it stood right after the event.
    const bySequence = [...recovered].sort((a, b) => Number(a["sequence"]) - Number(b["sequence"]))
    expect(bySequence.map((d) => [d["event_stream_id"], d["event_type"]])).toEqual([
      [c1, "contact.created"],
      [c2, "contact.created"],
      [c2, "contact.updated"]
    ])
    const payloads = bySequence.map((d) => d["payload_data"] as JsonObject)
    expect((payloads[1]!["contact"] as JsonObject)["title"]).toBeNull()
    expect((payloads[2]!["contact"] as JsonObject)["title"]).toBe("Later")
    expect(payloads[2]!["changed_fields"]).toEqual(["title"])
    expect(JSON.stringify(deliveries)).not.toContain("three@x.io")

    // The webhook is free again; a second recovery finds every event covered.
    const again = (yield* engine.webhooks.recover(ctx, webhook, { since })).data
    const twice = yield* finished(engine, ctx, webhook, again["id"] as string)
    expect(twice).toMatchObject({ status: "done", scheduled: 0, skipped: 5 })
    expect(yield* deliveriesOf(storage, ctx, webhook)).toHaveLength(4)
  }).pipe(Effect.scoped)

/** Two runners that never leave a job to each other, and a third killed mid-way: each event once. */
export const racingRunners = (storage: StorageService, queue: DeliveryQueueService) =>
  Effect.gen(function* () {
    const engine = yield* engineOver({ storage, queue }, { webhooks: acceptingTargets })
    const ctx = ctxFor("race")
    // The test clock starts at the epoch: every event is recorded at or after it.
    const since = new Date(0).toISOString()
    const contacts = yield* Effect.forEach(
      Array.from({ length: 60 }, (_, i) => `r${i}@x.io`),
      (email) => Effect.map(engine.contacts.create(ctx, { email }), (c) => c.data["id"] as string),
      { concurrency: 4 }
    )
    const webhook = (yield* engine.webhooks.create(ctx, { url: "https://hooks.example/in", events: ["*"] })).data["id"] as string
    const job = (yield* engine.webhooks.recover(ctx, webhook, { since })).data

    const held = yield* Deferred.make<void>()
    const doomed = yield* Effect.forkScoped(
      runner(holdingSecondChunk(storage, job["id"] as string, held), queue, "host-doomed", { chunk: 7, staleMillis: 0 })
    )
    // Killed once it has recorded a chunk, with the next one decided and its commit on the way.
    yield* Deferred.await(held)
    yield* Fiber.interrupt(doomed)
    expect(Exit.hasInterrupts(yield* Fiber.await(doomed))).toBe(true)
    // Mid-way: one chunk of the 60 events recorded, with its deliveries, and the job still running.
    const atKill = (yield* engine.webhooks.recovery(ctx, webhook, job["id"] as string)).data
    expect(atKill).toMatchObject({ status: "running", scheduled: 7, skipped: 0 })
    expect(yield* deliveriesOf(storage, ctx, webhook)).toHaveLength(7)
    yield* Effect.forkScoped(runner(storage, queue, "host-a", { chunk: 7, staleMillis: 0 }))
    yield* Effect.forkScoped(runner(storage, queue, "host-b", { chunk: 7, staleMillis: 0 }))
    const done = yield* finished(engine, ctx, webhook, job["id"] as string)
    expect(done).toMatchObject({ status: "done", scheduled: 60, skipped: 0 })

    const deliveries = (yield* deliveriesOf(storage, ctx, webhook)).map((d) => d.data)
    expect(deliveries).toHaveLength(60)
    expect(new Set(deliveries.map((d) => d["event_id"])).size).toBe(60)
    expect(new Set(deliveries.map((d) => d["event_stream_id"]))).toEqual(new Set(contacts))
  }).pipe(Effect.scoped)
