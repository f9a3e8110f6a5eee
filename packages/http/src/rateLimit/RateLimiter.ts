import { Context, Layer } from "effect"

export interface RateLimitOptions {
  /** Tokens added per second. */
  readonly rate: number
  /** Bucket size: how many requests may come at once after a quiet period. */
  readonly burst: number
  /**
   * At most this many buckets are kept (default 100,000). Past it the least recently used goes,
   * full or not: under a spray of more distinct clients than that, memory stays bounded and the
   * client whose bucket went starts again with a full one.
   */
  readonly capacity?: number
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
  /** Takes a token from the bucket at `now`, the fiber's Clock as the caller read it (once per request). */
  readonly takeAt: (bucket: string, now: number) => RateDecision
  /** The options it was made with (the address limit's defaults derive from the per-key ones). */
  readonly options: RateLimitOptions
  /** Buckets held now. */
  readonly size: () => number
}

/** The limit per API key, taken once the key is known. */
export class RateLimiter extends Context.Service<RateLimiter, RateLimiterService>()("@dealstream/http/RateLimiter") {}

interface Bucket {
  tokens: number
  updatedAt: number
}

export const DEFAULT_CAPACITY = 100_000

/**
 * Token buckets by name, in this process only: several hosts behind one balancer each allow the
 * configured rate. A bucket left alone long enough to have filled up is dropped, as a new one
 * starts full anyway, so memory follows the clients seen within the last `burst / rate` seconds.
 */
export const make = (options: RateLimitOptions): RateLimiterService => {
  const { burst, rate } = options
  const capacity = options.capacity ?? DEFAULT_CAPACITY
  // Insertion order is update order (a bucket is re-inserted on each take): the first is the
  // least recently used.
  const buckets = new Map<string, Bucket>()
  const refilled = (bucket: Bucket, now: number) =>
    // A clock that stepped back refills nothing rather than draining the bucket.
    Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * rate)
  const evict = (now: number) => {
    for (const [name, bucket] of buckets) {
      if (buckets.size <= capacity && refilled(bucket, now) < burst) return
      buckets.delete(name)
    }
  }
  const takeAt = (name: string, now: number): RateDecision => {
    const held = buckets.get(name)
    const bucket = held === undefined ? { tokens: burst, updatedAt: now } : { tokens: refilled(held, now), updatedAt: now }
    buckets.delete(name)
    const allowed = bucket.tokens >= 1
    if (allowed) bucket.tokens -= 1
    buckets.set(name, bucket)
    evict(now)
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((burst - bucket.tokens) / rate),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate))
    }
  }
  return {
    options,
    size: () => buckets.size,
    takeAt
  }
}

export const layer = (options: RateLimitOptions): Layer.Layer<RateLimiter> => Layer.sync(RateLimiter, () => make(options))
