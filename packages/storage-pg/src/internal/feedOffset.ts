import { tables } from "../tables.js"

/**
 * The feed's key on Citus is the committing transaction's id on the worker that ran it plus the
 * workspace's offset (ds_feed_offsets, migration 0029): a workspace moved to another worker meets
 * transaction ids unrelated to the ones its log holds, and the offset lifts the new worker's ids
 * above every key stored. A row says which worker (its Citus group id) the offset was set for; on
 * any other it is stale, and the first commit there sets it again (functions/ds_commit_batch_in.ts).
 * On plain PostgreSQL the table stays empty and the key is the transaction id, as before.
 *
 * The commit hands the offset to the log's column default through this transaction-local setting:
 * the commit functions name no xact_id, so the default is the one place that makes the key.
 */
export const FEED_OFFSET_SETTING = "dealstream.feed_offset"

/** ds_events.xact_id's default on Citus (citus.ts): the transaction id plus the offset its commit set. */
export const feedKeyDefault = `((pg_current_xact_id())::text::bigint + COALESCE(NULLIF(current_setting('${FEED_OFFSET_SETTING}'::text, true), ''::text), '0'::text)::bigint)::text::xid8`

/** The Citus group id of the node the statement runs on: which transaction ids it takes. */
export const localServer = "(SELECT groupid FROM pg_dist_local_group)"

/**
 * The offset era of a row of ds_feed_offsets as one text ('' for no row: before the workspace's
 * first commit on Citus). The feed bound says which era it was computed in, and the page read below
 * it checks that the era still holds there (citusFeed.ts), so a bound taken on the worker a
 * workspace just left is never used against events the next worker wrote.
 */
export const eraText = (row: string) => `coalesce(${row}.server || ':' || ${row}.xact_offset, '')`

/** The era of workspace `w` as it stands. */
export const feedEra = (w: string) =>
  `coalesce((SELECT ${eraText("era")} FROM ${tables.feedOffsets} AS era WHERE era.workspace_id = ${w}), '')`
