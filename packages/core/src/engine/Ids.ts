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
export const makeIds = Effect.gen(function*() {
  let lastTime = -1
  let lastRandom: Array<number> = []
  const make = (prefix: IdPrefix) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
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
        for (let i = 0; i < 16; i++) lastRandom.push(yield* Random.nextIntBetween(0, 32, { halfOpen: true }))
        // Leave headroom so increments within a millisecond do not overflow.
        lastRandom[0] = lastRandom[0]! % 16
      }
      lastTime = time
      return `${prefix}_${encodeTime(time)}${lastRandom.map((d) => ALPHABET[d]).join("")}`
    })
  return Ids.of({ make })
})

export const IdsLive = Layer.effect(Ids, makeIds)
