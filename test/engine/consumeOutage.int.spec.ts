import {
  ALL_WORKSPACES,
  ConsumerCheckpoints,
  createPromiseEngine,
  DeliveryQueue,
  Storage,
  StorageUnavailable,
  type StorageService
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Context, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { handlerSignals } from "./consumeWaits.js"

/**
 * A consumer outlives its storage being unavailable: the feed reads of a memory storage fail while
 * a planted outage lasts, and each consumer (one workspace, and every workspace) still handles every
 * event once the storage answers again. A consumer whose read turned the failure into a defect
 * stopped for good (the planted bug this catches, fixed in feed/consume.ts).
 */

/** Memory storage whose feed reads fail while `down()` holds. */
const flaky = (down: () => boolean) =>
  Layer.effectContext(
    Effect.map(MemoryStorage.makeWithQueue, ({ checkpoints, queue, storage }) => {
      const failing: StorageService = {
        ...storage,
        readFeed: (options) => (down() ? Effect.fail(new StorageUnavailable({ message: "planted outage" })) : storage.readFeed(options))
      }
      return Context.make(Storage, failing).pipe(Context.add(DeliveryQueue, queue), Context.add(ConsumerCheckpoints, checkpoints))
    })
  )

describe("a consumer across a storage outage", () => {
  it("handles every event once the storage answers again, over one workspace and over every workspace", async () => {
    let outage = false
    const crm = await createPromiseEngine(flaky(() => outage))
    try {
      const ctx = { workspaceId: "ws_outage", requestId: null, actor: "writer" }
      const handled: Record<string, Array<string>> = { one: [], every: [] }
      const signals = handlerSignals(20_000)
      const start = (name: "one" | "every") =>
        crm.consume({
          name,
          workspaceId: name === "one" ? ctx.workspaceId : ALL_WORKSPACES,
          leaseMillis: 3_000,
          handler: async (event) => {
            handled[name]!.push(event["id"] as string)
            signals.changed()
          }
        })
      await crm.contacts.create(ctx, { email: "before@outage.io" })
      const consumers = [await start("one"), await start("every")]
      await signals.until(() => handled["one"]!.length === 1 && handled["every"]!.length === 1, "the first event handled")
      // While the outage lasts, writes go on and the consumers' reads fail.
      outage = true
      for (const email of ["during1@outage.io", "during2@outage.io"]) await crm.contacts.create(ctx, { email })
      outage = false
      await crm.contacts.create(ctx, { email: "after@outage.io" })
      await signals.until(() => handled["one"]!.length === 4 && handled["every"]!.length === 4, "every event handled after the outage")
      const ids = (await crm.events.list(ctx, { limit: "100" })).data.map((event) => event["id"] as string)
      expect(handled["one"]).toEqual(ids)
      expect(handled["every"]).toEqual(ids)
      await Promise.all(consumers.map((consumer) => consumer.stop()))
    } finally {
      await crm.dispose()
    }
  }, 60_000)
})
