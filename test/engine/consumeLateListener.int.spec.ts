import { ALL_WORKSPACES, ConsumerCheckpoints, Engine, EngineLive, IdsLive, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Option, Stream } from "effect"
import { makeConsumers } from "../../packages/core/src/engine/feed/consume.js"
import { ctxOf, noWebhookSending } from "../support/engine.js"

// A consumer over every workspace lists the workspaces once at its start and then hears of new ones
// through the feed's signal. On PostgreSQL that signal comes through a LISTEN connection that may
// still be connecting after the first listing: a workspace whose first event is committed in
// between is signalled to nobody. It failed CI's run of consumeEveryWorkspace.pg on a busy machine
// (8 events of 3 workspaces not handled within 40 s): the next listing came a minute later.

describe("a consumer over every workspace whose feed listener is late", () => {
  it.live(
    "still handles a workspace whose first event came before the listener was in place",
    () =>
      Effect.gen(function* () {
        const engine = yield* Engine
        const storage = yield* Storage
        const checkpoints = yield* ConsumerCheckpoints
        const listedOnce = yield* Deferred.make<void>()
        const listening = yield* Deferred.make<void>()
        // The storage's own checkpoints, telling when the consumer first listed the workspaces.
        const observed = {
          ...checkpoints,
          workspaces: (after: string | null, limit: number) =>
            Effect.tap(checkpoints.workspaces(after, limit), () => Deferred.succeed(listedOnce, undefined))
        }
        // The storage's own feed signal, heard only once `listening`: what is said before is lost.
        const late = Stream.unwrap(Effect.as(Deferred.await(listening), storage.feedChanges))
        const { consume } = makeConsumers(engine.events.list, late, Option.some(observed), yield* Effect.scope)
        const handled = yield* Deferred.make<string>()
        yield* consume({
          name: "late",
          workspaceId: ALL_WORKSPACES,
          leaseMillis: 3_000,
          handler: (event) => Deferred.succeed(handled, String(event["workspace_id"]))
        })
        yield* Deferred.await(listedOnce)
        yield* engine.contacts.create(ctxOf("ws_late"), { email: "late@example.com" })
        yield* Deferred.succeed(listening, undefined)
        // Found by a listing soon after the start; before, only by the one a minute later.
        const workspace = yield* Deferred.await(handled).pipe(
          Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.succeed("none within 20 s") })
        )
        expect(workspace).toBe("ws_late")
      }).pipe(
        Effect.scoped,
        Effect.provide(EngineLive.pipe(Layer.provideMerge(MemoryStorage.layer), Layer.provide(IdsLive), Layer.provide(noWebhookSending)), {
          local: true
        })
      ),
    60_000
  )
})
