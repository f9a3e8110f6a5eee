import { FEED_LOCK_CLASS } from "./internal/feedLock.js"

/**
 * The transaction id below which a read may take a workspace's events: no transaction below it can
 * still add an event to that workspace's feed, so a reader that moves past an event never finds an
 * earlier one appear behind it (sequences are taken at insert; commits land in another order).
 *
 * Given the statement's snapshot S and, read once during the statement, the lock table L (both SQL
 * fragments of a WITH, taking the workspace as a parameter): every transaction below S's xmax has
 * ended, except those S lists as running. Of those, the bound stops at the first one that
 *  - still runs and holds the workspace's feed lock (a commit of this workspace in flight: its
 *    backend holds the mark, sameHolder below), or
 *  - has ended since S was taken (its events, if any, are invisible to S yet committed).
 * A running transaction without the mark cannot append to this workspace: commits take the mark
 * before their first write (migration 0017), and a transaction S lists already has an id, so it
 * has written. So a transaction left open anywhere else, in this database or another, holds back
 * no feed, and a stalled commit only its own workspaces' feeds, until its statement times out.
 *
 * The bound is not monotonic: a stranger that ends between S and L lowers it to its id for that one
 * read (`ended` says so), so such a read may show fewer events than the read before it. A reader
 * following its cursor would never see that (nothing before its position can appear, and a lower
 * bound only shows less), but one reading from the start would: readFeed reads again, on a new
 * snapshot, when `ended` held the bound back (rare: a transaction ending within one statement).
 */
export const workspaceWriters = (workspace: string): string =>
  `snapshot AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
  locks AS MATERIALIZED (
    SELECT locktype, pid, virtualtransaction, transactionid FROM pg_locks
    WHERE (locktype = 'transactionid' AND mode = 'ExclusiveLock' AND granted)
      OR (locktype = 'advisory' AND classid = ${FEED_LOCK_CLASS} AND objid = hashtext(${workspace})::oid AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
  ),
  ${boundOver()}`

/**
 * Which lock rows belong to one holder: `own` a transaction id's lock, `mark` a feed mark (SQL
 * aliases of pg_locks rows).
 */
export type MarkHolder = (own: string, mark: string) => string

/**
 * The same backend, or the same virtual transaction. pg_locks reads its rows under the lock
 * manager's locks, so which locks are held is one consistent state; but each row's
 * `virtualtransaction` is read from the holder's process entry, which a committing backend changes
 * without those locks (it clears its local id as it leaves the running set, before releasing any
 * lock). So a commit ending during the read can show its id lock as `20/0` and its mark as
 * `20/5454`: matched by that column alone it looked unmarked and the bound passed it, while the
 * snapshot still had it running (the gap the feed property found under load;
 * feedBound.pg.spec.ts keeps that lock table). A backend runs one transaction at a time and its
 * transaction-level locks go when it ends, so a mark held by the backend holding the id lock is that
 * transaction's. The virtual transaction stays as a second way for rows with no backend (a prepared
 * transaction shows none), which ours never are.
 */
export const sameHolder: MarkHolder = (own, mark) => `(${mark}.pid = ${own}.pid OR ${mark}.virtualtransaction = ${own}.virtualtransaction)`

/**
 * `own`, `marks`, `held` and `bound` over the relations `snapshot(s)` and `locks(locktype, pid,
 * virtualtransaction, transactionid)` that the WITH list defines before them: the rule above,
 * apart from where its inputs come from, so that feedBound.pg.spec.ts can give it lock tables.
 *
 * Each running transaction finds its id lock by a hash join and its mark among the few marks, so the
 * cost grows with the locks, not with running transactions × locks: with 1,000 running and none
 * marked it took 9 ms, where probing the whole lock table per transaction took 138
 * (bench/feedBoundCost.mjs).
 */
export const boundOver = (holder: MarkHolder = sameHolder): string =>
  `own AS MATERIALIZED (
    SELECT transactionid, pid, virtualtransaction FROM locks WHERE locktype = 'transactionid'
  ),
  marks AS MATERIALIZED (SELECT pid, virtualtransaction FROM locks WHERE locktype = 'advisory'),
  held AS MATERIALIZED (
    SELECT xip.x, own.transactionid IS NULL AS ended,
      EXISTS (SELECT 1 FROM marks AS mark WHERE ${holder("own", "mark")}) AS marked
    FROM snapshot CROSS JOIN pg_snapshot_xip(snapshot.s) AS xip(x) LEFT JOIN own ON own.transactionid = xip.x::xid
  ),
  bound AS MATERIALIZED (
    SELECT coalesce(first.x, pg_snapshot_xmax(snapshot.s)) AS below, coalesce(first.ended, false) AS ended
    FROM snapshot LEFT JOIN LATERAL (
      SELECT held.x, held.ended FROM held WHERE held.ended OR held.marked ORDER BY held.x LIMIT 1
    ) AS first ON true
  )`

/**
 * The rule over a snapshot and a lock table given as values: `$1` a pg_snapshot's text, `$2` the
 * lock rows as JSON text. How feedBound.pg.spec.ts tests it and bench/feedBoundCost.mjs times it,
 * from one text.
 */
export const boundOverGiven = (holder: MarkHolder = sameHolder): string =>
  `WITH snapshot AS (SELECT $1::pg_snapshot AS s),
  locks AS (
    SELECT * FROM jsonb_to_recordset($2::text::jsonb) AS l(locktype text, pid int, virtualtransaction text, transactionid xid)
  ),
  ${boundOver(holder)}
  SELECT below::text, ended FROM bound`

/**
 * The bound before migration 0017: the xmin of the snapshot, which any transaction on the server
 * holds back. Kept for the test that shows a stranger's open transaction stalls it and not the
 * bound above (test/storage/feedStrangers.pg.spec.ts).
 */
export const serverXmin = (_workspace: string): string =>
  `bound AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS below, false AS ended)`

/** A WITH list that defines `bound(below)` for one workspace, the workspace given as a parameter. */
export type FeedBound = (workspace: string) => string
