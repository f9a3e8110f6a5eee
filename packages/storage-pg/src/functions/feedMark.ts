import { FEED_LOCK_CLASS } from "../internal/feedLock.js"

/**
 * The statement that marks a transaction with the feed lock of every workspace `w` ranges over (a
 * column of `from`), in key order; it must run before the transaction's first write (feedBound.ts
 * relies on it). Spelled into each function that commits rather than called as a function of its
 * own: one statement per commit instead of two.
 */
export const markFeeds = (w: string, from: string) =>
  `PERFORM pg_advisory_xact_lock_shared(${FEED_LOCK_CLASS}, keys.k)
        FROM (SELECT DISTINCT hashtext(${w}) AS k FROM ${from} ORDER BY 1) AS keys;`
