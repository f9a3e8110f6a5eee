import { Engine, type RequestContext, runDeliveryWorker } from "@dealstream/core"
import { Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { deliverySucceeded, memoryWorkerLayer } from "./memoryWorker.js"
import { startReceiver } from "./receiver.js"

const ctx: RequestContext = { workspaceId: "acme", requestId: null, actor: "test" }

/** Memory storage whose queue never hands a WebhookDeleted to its subscribers: as if LISTEN had been down. */
const layer = memoryWorkerLayer(
  (queue) => ({ ...queue, signals: queue.signals.pipe(Stream.filter((signal) => signal._tag !== "WebhookDeleted")) }),
  {
    timeoutMillis: 60_000
  }
)

describe("a WebhookDeleted signal that never arrives", () => {
  it("still aborts the attempt in flight within a poll interval or so, and nothing is sent afterwards", async () => {
    const receiver = await startReceiver()
    const markers: Array<Awaited<ReturnType<typeof startReceiver>>> = []
    try {
      receiver.script("hold")
      await Effect.runPromise(
        Effect.gen(function* () {
          const engine = yield* Engine
          yield* runDeliveryWorker({ owner: "worker-1", pollMillis: 200 }).pipe(Effect.forkScoped)
          const webhook = yield* engine.webhooks.create(ctx, { url: receiver.url, events: ["contact.created"] })
          yield* engine.contacts.create(ctx, { email: "held@example.com" })
          yield* Effect.promise(() => receiver.waitFor((r) => r.length === 1, "the held attempt"))

          yield* engine.webhooks.delete(ctx, String(webhook.data["id"]), null)
          // The attempt's own timeout is a minute away: only the worker's sweep can end it sooner.
          yield* Effect.promise(() => receiver.waitFor(() => receiver.aborted.length === 1, "the attempt to be aborted", 10_000))
          receiver.script({ status: 200 })
          // Nothing more may reach the deleted webhook. A marker webhook to another receiver gets the
          // next event: once its delivery is recorded, the worker has been through the queue since
          // the delete, and anything meant for the deleted webhook would have gone out before it.
          const marker = yield* Effect.promise(() => startReceiver())
          markers.push(marker)
          const markerHook = yield* engine.webhooks.create(ctx, { url: marker.url, events: ["contact.created"] })
          yield* engine.contacts.create(ctx, { email: "after@example.com" })
          yield* Effect.promise(() => marker.waitFor((r) => r.length === 1, "the marker delivery"))
          yield* deliverySucceeded(engine, ctx, String(markerHook.data["id"]))
          expect(receiver.received).toHaveLength(1)
        }).pipe(Effect.scoped, Effect.provide(layer))
      )
    } finally {
      await receiver.close()
      for (const marker of markers) await marker.close()
    }
  }, 30_000)
})
