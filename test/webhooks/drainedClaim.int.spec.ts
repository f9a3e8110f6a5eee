import { Engine, type RequestContext, runDeliveryWorker } from "@dealstream/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { deliverySucceeded, memoryWorkerLayer } from "./memoryWorker.js"
import { startReceiver } from "./receiver.js"

const ctx: RequestContext = { workspaceId: "acme", requestId: null, actor: "test" }

/** How many deliveries each claim of the worker took, in order. */
const claims: Array<number> = []

/** Memory storage whose queue counts what each claim takes. */
const layer = memoryWorkerLayer((queue) => ({
  ...queue,
  claim: (options) => Effect.tap(queue.claim(options), (claimed) => Effect.sync(() => claims.push(claimed.length)))
}))

describe("a claim that takes every delivery due", () => {
  it("is not followed by another claim until new work is signalled", async () => {
    const receiver = await startReceiver()
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const engine = yield* Engine
          // Polls a minute apart: within the test, only signals make the worker claim.
          yield* runDeliveryWorker({ owner: "worker-1", pollMillis: 60_000 }).pipe(Effect.forkScoped)
          const webhook = yield* engine.webhooks.create(ctx, { url: receiver.url, events: ["contact.created"] })
          yield* engine.contacts.create(ctx, { email: "one@example.com" })
          yield* Effect.promise(() => receiver.waitFor((r) => r.length === 1, "the delivery"))
          yield* deliverySucceeded(engine, ctx, String(webhook.data["id"]))
          // The claim that took the delivery was the last: asking again at once, as the worker did
          // after every claim that took something, would have found the queue empty before the
          // request even left.
          const taking = claims.findIndex((n) => n > 0)
          expect(claims[taking]).toBe(1)
          expect(claims.slice(taking + 1)).toEqual([])
        }).pipe(Effect.scoped, Effect.provide(layer))
      )
    } finally {
      await receiver.close()
    }
  }, 30_000)
})
