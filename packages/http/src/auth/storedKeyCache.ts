import { Clock, Effect } from "effect"

export interface StoredKeyCacheOptions {
  /** How long a positive answer is trusted: a key revoked in the database stops working within this. */
  readonly ttlMillis: number
  /** At most this many answers are kept; the oldest goes first. */
  readonly capacity: number
}

export const defaults: StoredKeyCacheOptions = { ttlMillis: 5_000, capacity: 10_000 }

export interface StoredKeyCache<A> {
  /**
   * The cached answer for `digest`, or the lookup's. Only found keys are kept: clients can send any
   * number of unknown keys, and each of those goes to the database (and could not be cached
   * soundly anyway: a key may be created a moment later).
   */
  readonly lookup: <E>(digest: string, lookup: Effect.Effect<A | null, E>) => Effect.Effect<A | null, E>
  /** The answer held for `digest` and still trusted at `now`, without asking anyone. */
  readonly peek: (digest: string, now: number) => A | undefined
  /**
   * Drops the answers `matches` picks: a key changed or revoked through this host applies here at
   * once, as the next lookup asks the database (other hosts take up to `ttlMillis`).
   */
  readonly forget: (matches: (value: A) => boolean) => void
  /** Answers held now (expired ones included until they are next asked for or pushed out). */
  readonly size: () => number
}

/**
 * The host's memory of stored keys it has authenticated, so that a busy client does not cost a
 * database read per request. An answer's age counts from before its lookup began, so a revocation
 * committed at any moment after the database answered is honoured at most `ttlMillis` later. Time is
 * Effect's Clock (TestClock in tests).
 */
export const make = <A>(options: StoredKeyCacheOptions = defaults): StoredKeyCache<A> => {
  // Insertion order is age order: an answer is (re)inserted when looked up, so the first is the oldest.
  const answers = new Map<string, { readonly value: A; readonly since: number }>()
  const peek = (digest: string, now: number): A | undefined => {
    const cached = answers.get(digest)
    return cached !== undefined && now - cached.since < options.ttlMillis ? cached.value : undefined
  }
  return {
    peek,
    lookup: (digest, lookup) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const trusted = peek(digest, now)
        if (trusted !== undefined) return trusted
        answers.delete(digest)
        const value = yield* lookup
        if (value === null) return null
        answers.set(digest, { value, since: now })
        while (answers.size > options.capacity) answers.delete(answers.keys().next().value!)
        return value
      }),
    forget: (matches) => {
      for (const [digest, { value }] of answers) if (matches(value)) answers.delete(digest)
    },
    size: () => answers.size
  }
}
