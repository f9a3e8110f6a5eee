import * as fc from "fast-check"

// The arbitraries are written by hand for fast-check rather than bridged from the events' Effect
// Schemas. Effect 4 derives arbitraries from a Schema for its own generator only (effect/Arbitrary,
// with its own shrinking and runner), so a bridge would give fast-check values it cannot shrink or
// replay from a seed. And the Schemas say too little for valid data: a deal's `fields` is any JSON
// object and its `stage_id` any string, where a command the engine would build names a stage of
// the deal's own pipeline, an ISO instant no earlier than the stream's last event, and fields as
// the input parsers leave them. arbitraries.unit.spec.ts checks every event these give against its
// aggregate's Schema, so the two cannot drift apart.

export const DAY = 24 * 60 * 60 * 1000

/** Where generated histories start: a fixed instant, so a counterexample replays as printed. */
export const START = Date.parse("2026-01-01T00:00:00.000Z")

export const isoAt = (millis: number): string => new Date(millis).toISOString()

/** An instant in 2026, whole milliseconds, as the engine writes them. */
export const instant: fc.Arbitrary<string> = fc.integer({ min: 0, max: 364 * DAY }).map((offset) => isoAt(START + offset))

/**
 * The time between two commands of one stream: mostly within days, sometimes past the 30-day
 * recovery window, so restores and purges meet both sides of it.
 */
export const gap: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 3 * DAY }), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 45 * DAY }), weight: 1 }
)

const idCharacters = "0123456789abcdefghjkmnpqrstvwxyz".split("")

/** A record id as the engine makes them: the prefix, `_`, and base32 letters. */
export const idOf = (prefix: string): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...idCharacters), minLength: 8, maxLength: 8 }).map((s) => `${prefix}_${s}`)

/** Words that exercise case folding, accents, other scripts and emoji (search and sort meet them). */
export const WORDS = ["Ann", "ann", "Zoë", "Straße", "ΣΑΣ", "sky blue", "😀 smile", "O'Brien"] as const

export const word: fc.Arbitrary<string> = fc.constantFrom(...WORDS)

/** `null` now and then, as the parsers leave a cleared optional field. */
export const orNull = <A>(arbitrary: fc.Arbitrary<A>): fc.Arbitrary<A | null> => fc.option(arbitrary, { nil: null, freq: 4 })

/**
 * One stream's commands in the order the engine records them: `first` (its creation), then up to
 * `maxLength` of `next`, each given an `at` a `gap` after the one before, from START.
 */
export const streamScript = <C extends { readonly at: string }>(
  first: fc.Arbitrary<C>,
  next: fc.Arbitrary<C>,
  maxLength = 20
): fc.Arbitrary<ReadonlyArray<C>> =>
  fc.tuple(first, fc.array(fc.tuple(gap, next), { maxLength })).map(([head, tail]) => {
    let now = START
    return [
      { ...head, at: isoAt(now) },
      ...tail.map(([pause, command]) => {
        now += pause
        return { ...command, at: isoAt(now) }
      })
    ]
  })
