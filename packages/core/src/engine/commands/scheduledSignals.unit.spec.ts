import { Deferred, Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import type { DeliveryQueueService, QueueSignal } from "../../storage/DeliveryQueue.js"
import { signalScheduled } from "./scheduledSignals.js"

/** A queue whose every signal waits until the test lets it through. */
const slowQueue = () => {
  const sent: Array<QueueSignal> = []
  const gates: Array<Deferred.Deferred<void>> = []
  const queue: DeliveryQueueService = {
    claim: () => Effect.succeed([]),
    release: () => Effect.void,
    nextDue: Effect.succeed(null),
    signals: Stream.empty,
    signal: (signal) =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        gates.push(gate)
        yield* Deferred.await(gate)
        sent.push(signal)
      })
  }
  return { queue, sent, gates }
}

const settle = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 0)))

describe("signalScheduled", () => {
  it("never makes the writer wait, keeps one signal in flight, and covers what came meanwhile with one more", async () => {
    const { gates, queue, sent } = slowQueue()
    await Effect.runPromise(
      Effect.gen(function* () {
        // Returns at once although the signal is held.
        yield* signalScheduled(queue)
        yield* settle
        expect(gates).toHaveLength(1)
        for (let i = 0; i < 5; i++) yield* signalScheduled(queue)
        yield* settle
        expect(gates).toHaveLength(1)
        yield* Deferred.succeed(gates[0]!, undefined)
        yield* settle
        // The five that came while the first was on its way: one more, no more.
        expect(gates).toHaveLength(2)
        yield* Deferred.succeed(gates[1]!, undefined)
        yield* settle
        expect(sent).toEqual([{ _tag: "Scheduled" }, { _tag: "Scheduled" }])
        // Idle again: the next write signals again.
        yield* signalScheduled(queue)
        yield* settle
        expect(gates).toHaveLength(3)
        yield* Deferred.succeed(gates[2]!, undefined)
      })
    )
  })
})
