import { Effect } from "effect"
import type { DeliveryQueueService } from "../../storage/DeliveryQueue.js"

interface Coalescer {
  sending: boolean
  again: boolean
}

const coalescers = new WeakMap<DeliveryQueueService, Coalescer>()

/**
 * Tells the workers of every host that deliveries were committed, without making the write wait
 * for it, and at most one signal in flight per queue: commits arriving while one is on its way
 * are covered by one more sent after it, since a woken worker claims everything due by then. A
 * webhook's every write sent a NOTIFY and waited for it, and every NOTIFY woke every worker for a
 * claim of one delivery. Best effort like every signal: workers also poll.
 */
export const signalScheduled = (queue: DeliveryQueueService): Effect.Effect<void> =>
  Effect.suspend(() => {
    let state = coalescers.get(queue)
    if (state === undefined) {
      state = { sending: false, again: false }
      coalescers.set(queue, state)
    }
    const coalescer = state
    if (coalescer.sending) {
      coalescer.again = true
      return Effect.void
    }
    coalescer.sending = true
    const sendUntilCovered: Effect.Effect<void> = Effect.suspend(() => {
      coalescer.again = false
      return queue.signal({ _tag: "Scheduled" }).pipe(
        Effect.ignore,
        Effect.andThen(
          Effect.suspend(() =>
            coalescer.again
              ? sendUntilCovered
              : Effect.sync(() => {
                  coalescer.sending = false
                })
          )
        )
      )
    })
    return Effect.asVoid(Effect.forkDetach(sendUntilCovered))
  })
