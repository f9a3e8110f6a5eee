import { Cause, Deferred, Duration, Effect, type Scope, Stream } from "effect"
import type { StorageService } from "../../storage/Storage.js"

/** A reader's place in line for the next change of its workspace's feed. */
export interface FeedTicket {
  /** Until the feed changes (or listening resumed after a loss), or `millis` pass. */
  readonly await: (millis: number) => Effect.Effect<void>
  readonly cancel: Effect.Effect<void>
}

export interface FeedWaiters {
  /**
   * A ticket taken before the read it guards: a change committed between the read and the wait
   * still wakes it.
   */
  readonly ticket: (workspaceId: string) => Effect.Effect<FeedTicket>
  /** From now on no read waits: every waiting one is woken, and later tickets are woken at once. */
  readonly stop: Effect.Effect<void>
  readonly stopped: () => boolean
}

/**
 * Wakes long-polling feed readers when their workspace's feed changes, on any host (the storage's
 * feedChanges; one listening connection on PostgreSQL, opened by the first wait and kept while
 * the engine's scope lasts). A lost connection wakes everyone; readers read again now and then
 * anyway, so a lost notification costs latency, never an event.
 */
export const makeFeedWaiters = (storage: StorageService, scope: Scope.Scope): FeedWaiters => {
  const waiting = new Map<string, Set<Deferred.Deferred<void>>>()
  let listening = false
  let stopped = false

  const wake = (workspaceId: string | null) =>
    Effect.sync(() => {
      const woken = workspaceId === null ? [...waiting.values()].flatMap((set) => [...set]) : [...(waiting.get(workspaceId) ?? [])]
      if (workspaceId === null) waiting.clear()
      else waiting.delete(workspaceId)
      return woken
    }).pipe(Effect.flatMap((woken) => Effect.forEach(woken, (deferred) => Deferred.succeed(deferred, undefined), { discard: true })))

  const follow = Effect.forever(
    storage.feedChanges.pipe(
      Stream.runForEach((change) => wake(change._tag === "Appended" ? change.workspaceId : null)),
      Effect.catchCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.void)),
      Effect.andThen(wake(null)),
      Effect.andThen(Effect.sleep(Duration.seconds(1)))
    )
  )

  const listen = Effect.suspend(() => {
    if (listening) return Effect.void
    listening = true
    return Effect.asVoid(Effect.forkIn(follow, scope))
  })

  return {
    stop: Effect.suspend(() => {
      stopped = true
      return wake(null)
    }),
    stopped: () => stopped,
    ticket: (workspaceId) =>
      Effect.gen(function* () {
        yield* listen
        const deferred = yield* Deferred.make<void>()
        if (stopped) yield* Deferred.succeed(deferred, undefined)
        const set = waiting.get(workspaceId) ?? new Set()
        set.add(deferred)
        waiting.set(workspaceId, set)
        const cancel = Effect.sync(() => {
          const current = waiting.get(workspaceId)
          current?.delete(deferred)
          if (current?.size === 0) waiting.delete(workspaceId)
        })
        return {
          await: (millis) => Effect.asVoid(Effect.timeoutOption(Deferred.await(deferred), Duration.millis(Math.max(0, millis)))),
          cancel
        }
      })
  }
}
