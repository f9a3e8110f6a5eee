import { Clock, Context, Effect, Layer, Random } from "effect"

/**
 * What an id starts with: a record's is its aggregate's `prefix` (`con`, `deal`, `pipe`, `wh`, `dlv`),
 * which is how its stream's kind is told; stages, events, timeline entries, activities and requests
 * have theirs (`stage`, `evt`, `tle`, `act`, `req`).
 */
export type IdPrefix = string

export interface IdsService {
  /** A new id `<prefix>_<26 chars>`, increasing with creation time within one process. */
  readonly make: (prefix: IdPrefix) => Effect.Effect<string>
  /**
   * The same, outside any fiber (the host's front, before a request reaches Effect): from the
   * system clock and Math.random rather than the fiber's Clock and Random.
   */
  readonly makeUnsafe: (prefix: IdPrefix) => string
}

export class Ids extends Context.Service<Ids, IdsService>()("@dealstream/core/Ids") {}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"

const encodeTime = (millis: number): string => {
  let out = ""
  let rest = millis
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out
    rest = Math.floor(rest / 32)
  }
  return out
}

/**
 * ULID-shaped ids (48-bit time, 80 random bits, Crockford base32 in lowercase). Within one
 * millisecond the random part is incremented, so ids made by one process sort in creation order;
 * across hosts they sort by time to the millisecond.
 */
export const makeIds = Effect.sync(() => {
  let lastTime = -1
  let lastRandom: Array<number> = []
  const next = (prefix: IdPrefix, now: number, random: () => number) => {
    const time = Math.max(now, lastTime)
    if (time === lastTime) {
      let i = lastRandom.length - 1
      while (i >= 0 && lastRandom[i] === 31) {
        lastRandom[i] = 0
        i--
      }
      if (i >= 0) lastRandom[i] = lastRandom[i]! + 1
    } else {
      lastRandom = []
      for (let i = 0; i < 16; i++) lastRandom.push(Math.floor(random() * 32))
      // Leave headroom so increments within a millisecond do not overflow.
      lastRandom[0] = lastRandom[0]! % 16
    }
    lastTime = time
    let out = `${prefix}_${encodeTime(time)}`
    for (const digit of lastRandom) out += ALPHABET[digit]
    return out
  }
  // The fiber's Clock and Random (a test's, when it provides them) read directly: an id is made for
  // every request and event, and an Effect.gen over Clock and Random cost 7 µs of each request.
  const make = (prefix: IdPrefix) =>
    Effect.withFiber((fiber) => {
      const random = fiber.getRef(Random.Random)
      return Effect.succeed(next(prefix, fiber.getRef(Clock.Clock).currentTimeMillisUnsafe(), () => random.nextDoubleUnsafe()))
    })
  return Ids.of({ make, makeUnsafe: (prefix) => next(prefix, Date.now(), Math.random) })
})

export const IdsLive = Layer.effect(Ids, makeIds)
