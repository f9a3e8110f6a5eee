import type { StoredEvent } from "./events.js"

/**
 * A place in one workspace's change feed. Events are handed out in the order of the transactions
 * that wrote them, then of their sequence: on PostgreSQL `transaction` is the writing
 * transaction's id (decimal text; "0" for events written before ids were recorded), and a reader
 * is only given events of transactions older than every one still running, so no commit can land
 * behind a position it already passed. Where commits never overlap (the memory storage) it is "0"
 * and the order is the sequence's.
 */
export interface ChangeFeedPosition {
  readonly transaction: string
  readonly sequence: number
}

export interface ChangeFeedEvent extends StoredEvent {
  readonly position: ChangeFeedPosition
}

/** One read of the feed. */
export interface ChangeFeedPage {
  readonly events: ReadonlyArray<ChangeFeedEvent>
  /**
   * Where the next read starts: the last event's position when the page is full; otherwise the
   * last position the read could see of the workspace's log, of any type, so events the types
   * filter left out (deliveries' attempts, say) are not read again by the next poll. null when the
   * workspace has no event the read could see.
   */
  readonly through: ChangeFeedPosition | null
}

/**
 * Which event types a feed read keeps: exact names, and `prefix.*` for every type under a prefix
 * (`contact.*`). Empty keeps every type.
 */
export type ChangeFeedTypes = ReadonlyArray<string>

/** Whether a type is kept by the patterns (the memory storage's filter; PostgreSQL's is the same in SQL). */
export const changeFeedTypeMatches = (patterns: ChangeFeedTypes, type: string): boolean =>
  patterns.length === 0 || patterns.some((pattern) => (pattern.endsWith(".*") ? type.startsWith(pattern.slice(0, -1)) : pattern === type))

/** Positions compare by transaction id (as numbers: ids outgrow 2^53 only in theory), then sequence. */
export const compareChangeFeedPositions = (a: ChangeFeedPosition, b: ChangeFeedPosition): number => {
  const ta = BigInt(a.transaction)
  const tb = BigInt(b.transaction)
  return ta < tb ? -1 : ta > tb ? 1 : a.sequence - b.sequence
}

/**
 * A read's `through` (see ChangeFeedPage), from what it found: the page's last event when the page
 * is full, else the later of that and the last position of the workspace the read could see, and
 * never before where the read started.
 */
export const feedThrough = (
  events: ReadonlyArray<{ readonly position: ChangeFeedPosition }>,
  limit: number,
  after: ChangeFeedPosition | null,
  tail: ChangeFeedPosition | null
): ChangeFeedPosition | null => {
  const later = (a: ChangeFeedPosition | null, b: ChangeFeedPosition | null) =>
    a === null ? b : b === null ? a : compareChangeFeedPositions(a, b) >= 0 ? a : b
  const last = events.at(-1)?.position ?? null
  if (events.length >= limit && last !== null) return last
  return later(later(after, last), tail)
}
