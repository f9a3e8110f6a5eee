import type { KeyUse, StorageUnavailable } from "@dealstream/core"
import { Duration, Effect, type Scope } from "effect"

export interface KeyUsesOptions {
  /** A key's use is noted at most this often (the engine skips a write within it too). */
  readonly everyMillis: number
  /** How often the noted uses are written, in one commit. */
  readonly flushMillis: number
  /** At most this many keys' last notes are remembered; the oldest goes first (it is noted again). */
  readonly capacity: number
}

export const defaults: KeyUsesOptions = { everyMillis: 60_000, flushMillis: 1_000, capacity: 10_000 }

export interface KeyUses {
  /**
   * Notes that a stored key was used at `now` (the fiber's Clock, read once per request).
   * Synchronous and in memory: a request never waits for the write, which a background fiber makes
   * (`flush`); a use within `everyMillis` of the key's last note is not noted.
   */
  readonly noteAt: (keyId: string, now: number) => void
  /** Writes what was noted since the last flush (the fiber's step; tests call it themselves). */
  readonly flush: Effect.Effect<void>
  /** Uses noted and not written yet. */
  readonly pending: () => number
}

/**
 * `last_used_at` off the request path (engine/records/apiKeys.ts says why it is no event): uses are
 * noted in memory, at most once a minute per key on this host, and written by a fiber of the
 * scope's every `flushMillis`, all of them in one commit. A write that fails (the database is away)
 * is logged and its keys are noted again at their next use; a write that hangs holds back only the
 * next writes, never a request. Time is Effect's Clock (TestClock in tests).
 */
export const make = (
  write: (uses: ReadonlyArray<KeyUse>) => Effect.Effect<void, StorageUnavailable>,
  options: KeyUsesOptions = defaults
): Effect.Effect<KeyUses, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Insertion order is note order: the first is the one noted longest ago.
    const noted = new Map<string, number>()
    let waiting = new Map<string, string>()

    const noteAt = (keyId: string, now: number) => {
      const last = noted.get(keyId)
      if (last !== undefined && now - last < options.everyMillis) return
      noted.delete(keyId)
      noted.set(keyId, now)
      while (noted.size > options.capacity) noted.delete(noted.keys().next().value!)
      waiting.set(keyId, new Date(now).toISOString())
    }

    const flush = Effect.suspend(() => {
      if (waiting.size === 0) return Effect.void
      const batch = waiting
      waiting = new Map()
      const uses = [...batch].map(([keyId, at]) => ({ keyId, at }))
      return write(uses).pipe(
        Effect.catch((error) =>
          Effect.andThen(
            Effect.sync(() => {
              for (const keyId of batch.keys()) noted.delete(keyId)
            }),
            Effect.logWarning("API key uses not recorded", error.message)
          )
        )
      )
    })

    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(Duration.millis(options.flushMillis)), flush)))
    // What was noted last is written as the scope closes (a host stopping), unless the database is away.
    yield* Effect.addFinalizer(() => flush.pipe(Effect.timeoutOption(Duration.seconds(2)), Effect.ignore))
    return { noteAt, flush, pending: () => waiting.size }
  })
