/**
 * The feed lock: every transaction that appends events holds, from before its first write, a shared
 * transaction-scoped advisory lock per workspace it appends to (since migration 0017; the statement
 * is functions/feedMark.ts). Shared locks never wait for each other, so writers do not contend; the
 * lock is a mark in pg_locks that a reader can see, telling which running transactions may still
 * add events to a workspace's feed (readFeed.ts).
 *
 * The class is "feed" in ASCII; the key is the workspace's hashtext, the same two-int4 form the
 * settings lock uses (pg_locks shows it as classid, objid as an oid, objsubid 2). Two workspaces
 * sharing a hash only hold back each other's feed a little longer, never lose an event.
 */
export const FEED_LOCK_CLASS = 1_717_920_100
