import { Clock, Context, Effect, Layer } from "effect"

export interface RateLimitOptions {
  /** Tokens added per second. */
  readonly rate: number
  /** Bucket size: how many requests may come at once after a quiet period. */
  readonly burst: number
}

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number
  /** Seconds until the next request would be allowed (only meaningful when refused). */
  readonly retryAfterSeconds: number
}

export interface RateLimiterService {
  readonly take: (bucket: string) => Effect.Effect<RateDecision>
}

export class RateLimiter extends Context.Tag("@dealstream/http/RateLimiter")<RateLimiter, RateLimiterService>() {}

interface Bucket {
  tokens: number
  updatedAt: number
}

/**
 * A token bucket per API key, in this process only: several hosts behind one balancer each allow
 * the configured rate. Buckets exist only for authenticated keys, so their number is bounded.
 */
export const make = ({ burst, rate }: RateLimitOptions): RateLimiterService => {
  const buckets = new Map<string, Bucket>()
  return {
    take: (id) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const bucket = buckets.get(id) ?? { tokens: burst, updatedAt: now }
        bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * rate)
        bucket.updatedAt = now
        buckets.set(id, bucket)
        const allowed = bucket.tokens >= 1
        if (allowed) bucket.tokens -= 1
        return {
          allowed,
          limit: burst,
          remaining: Math.floor(bucket.tokens),
          resetSeconds: Math.ceil((burst - bucket.tokens) / rate),
          retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate))
        }
      })
  }
}

export const layer = (options: RateLimitOptions): Layer.Layer<RateLimiter> =>
  Layer.sync(RateLimiter, () => make(options))
