import { Context } from "effect"
import { addressBucket, clientAddress, trustedProxies } from "./clientAddress.js"
import * as RateLimiter from "./RateLimiter.js"

export interface AddressRateLimitSettings {
  /** Requests per second per client address; default ten times the per-key rate. */
  readonly rate?: number
  /** Bucket size per client address; default ten times the per-key burst. */
  readonly burst?: number
  /** Proxies whose `X-Forwarded-For` names the client (addresses or subnets); none by default. */
  readonly trustProxy?: ReadonlyArray<string>
}

/**
 * How requests are limited per client address before their API key is looked up. A reference
 * with a default, so a host built with `HostLive` alone is limited too. HostLive takes the
 * settings as options (`ipRateLimit`, `ipRateBurst`, `trustProxy`) and provides them here; an
 * embedder may provide the reference instead, for the settings its options leave out.
 */
export const AddressRateLimit = Context.Reference<AddressRateLimitSettings>("@dealstream/http/AddressRateLimit", {
  defaultValue: (): AddressRateLimitSettings => ({})
})

/**
 * The address limit stands in front of the key lookup, and every request of one client is
 * charged to it (with a valid key too), so its default must leave room for one address that runs
 * several keys at their full rate before the address limit refuses anything: ten.
 */
export const KEYS_PER_ADDRESS = 10

export interface AddressLimiter {
  /**
   * Charges the client of a request at `now` (read by the caller): its socket's peer, or a client a
   * trusted proxy names in `X-Forwarded-For`.
   */
  readonly takeAt: (peer: string | undefined, forwardedFor: string | undefined, now: number) => RateLimiter.RateDecision
}

/** How many peers' buckets are kept; past that the kept ones are dropped at once. */
const MAX_PEERS = 10_000

/** Throws on a trusted proxy entry that is not an address or subnet. */
export const make = (settings: AddressRateLimitSettings, perKey: RateLimiter.RateLimitOptions): AddressLimiter => {
  const trusted = trustedProxies(settings.trustProxy ?? [])
  const limiter = RateLimiter.make({
    rate: settings.rate ?? KEYS_PER_ADDRESS * perKey.rate,
    burst: settings.burst ?? KEYS_PER_ADDRESS * perKey.burst
  })
  // A peer's bucket without X-Forwarded-For is the same at every request (its connection's), and
  // working it out (normalising the address, telling IPv6 from IPv4) was a regular expression or
  // three a request. Bounded: an address seen once more after a clear is worked out again.
  const buckets = new Map<string, string>()
  const bucketOf = (peer: string): string => {
    const known = buckets.get(peer)
    if (known !== undefined) return known
    if (buckets.size >= MAX_PEERS) buckets.clear()
    const bucket = addressBucket(clientAddress(peer, undefined, trusted))
    buckets.set(peer, bucket)
    return bucket
  }
  return {
    takeAt: (peer, forwardedFor, now) =>
      limiter.takeAt(
        peer !== undefined && forwardedFor === undefined ? bucketOf(peer) : addressBucket(clientAddress(peer, forwardedFor, trusted)),
        now
      )
  }
}
