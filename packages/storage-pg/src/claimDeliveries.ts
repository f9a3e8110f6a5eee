import type { ClaimOptions, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { documentColumns, type DocumentRow, toStoredDocument } from "./internal/documentRow.js"
import { isPending, nextAttemptAt } from "./internal/queueSql.js"
import { documentTables, tables } from "./tables.js"

/**
 * Ties of the due time go by the event's position, known ones first (memory storage sorts the
 * same), within the window: the window itself is read in the pending index's order alone, since a
 * second sort key there would make every claim sort every due row (a bitmap scan and a sort of the
 * whole backlog, 10 ms at 3,000 rows). Rows due at the same instant come in the index's order among
 * themselves, their insertion order, which is sequence order for deliveries scheduled together.
 */
export const sequenceKey = `((data ->> 'sequence')::bigint)`

/** A delivery a claim at `now` may take: pending, due, and not leased, or its lease has ended. */
export const claimable = (now: string) => `${isPending} AND ${nextAttemptAt} <= ${now} AND (lease_until IS NULL OR lease_until < ${now})`

/**
 * The delivery `d`'s data with its event's sequence, looked up the first time (see claimSql);
 * `sameWorkspace` narrows the look-up to the delivery's workspace (`e.workspace_id = … AND `).
 */
export const withSequence = (sameWorkspace: string) => `CASE WHEN jsonb_typeof(d.data -> 'sequence') = 'number' THEN d.data
    ELSE jsonb_set(d.data, '{sequence}', coalesce((
      SELECT to_jsonb(e.sequence) FROM ${tables.events} AS e
      WHERE ${sameWorkspace}e.stream_id = d.data ->> 'event_stream_id' AND e.stream_version = (d.data ->> 'event_version')::int
    ), 'null'::jsonb)) END`

/** What a claim answers of each delivery `d` it leased. */
export const claimedColumns = `d.workspace_id, ${documentColumns
  .split(", ")
  .map((c) => `d.${c}`)
  .join(", ")}`

/** How many more due rows than the claim's limit are looked at, for the per-webhook limit to choose from. */
export const WINDOW = 2

/**
 * One statement that picks and leases: the CTE locks a window of due, pending, unleased rows in
 * due order, at most `perWebhook` of each webhook are picked from it (none of `skipWebhooks`), and
 * the UPDATE leases exactly those.
 * - SKIP LOCKED: rows another claimer (or a commit) has locked are passed over, not waited for,
 *   so concurrent claimers take disjoint rows and never block each other. Window rows not picked
 *   are locked only until the statement ends.
 * - A row that another claimer leased and committed after this statement's snapshot is locked
 *   anyway, and FOR UPDATE re-checks the WHERE on its newest version (READ COMMITTED): its
 *   lease_until is now in the future, so it drops out. No delivery is leased twice at once.
 * - MATERIALIZED runs the locking SELECT once: as a plain `IN (SELECT … LIMIT)` sub-query the
 *   planner may rescan it (say on the inner side of a join), and a rescan of a SKIP LOCKED scan
 *   can pick other rows, leasing more than `limit`.
 * - The event's `sequence` is stored on the delivery by its first claim (the outbox schedules a
 *   delivery in its event's commit, before the position exists): one probe of ds_events' unique
 *   (stream_id, stream_version) index, instead of a read of the stream by every attempt.
 * The rows come back in no particular order (RETURNING follows the update), hence the sort.
 */
export const claimSql = `WITH due AS MATERIALIZED (
  SELECT workspace_id, id, data ->> 'webhook_id' AS webhook_id, ${nextAttemptAt} AS due_at, ${sequenceKey} AS seq
  FROM ${documentTables.delivery}
  WHERE ${claimable("$1::text")}
    AND NOT ((data ->> 'webhook_id') = ANY ($5::text[]))
  ORDER BY ${nextAttemptAt}
  LIMIT $2 * ${WINDOW}
  FOR UPDATE SKIP LOCKED
), picked AS (
  SELECT workspace_id, id FROM (
    SELECT workspace_id, id, due_at, seq, row_number() OVER (PARTITION BY webhook_id ORDER BY due_at, seq NULLS LAST, id) AS n FROM due
  ) AS ranked
  WHERE n <= $6
  ORDER BY due_at, seq NULLS LAST, id
  LIMIT $2
)
UPDATE ${documentTables.delivery} AS d SET lease_owner = $3, lease_until = $4, data = ${withSequence("")}
WHERE (d.workspace_id, d.id) IN (SELECT workspace_id, id FROM picked)
RETURNING ${claimedColumns}`

export interface ClaimedRow extends DocumentRow {
  readonly workspace_id: string
}

const dueOf = (document: StoredDocument) => String(document.data["next_attempt_at"])
const positionOf = (document: StoredDocument) => {
  const sequence = document.data["sequence"]
  return typeof sequence === "number" ? sequence : Number.MAX_SAFE_INTEGER
}

/** Claimed rows as the claim answers them: earliest due first, ties by their event's position. */
export const inClaimOrder = (rows: ReadonlyArray<ClaimedRow>): ReadonlyArray<StoredDocument> =>
  rows
    .map((row) => toStoredDocument("delivery", row.workspace_id, row))
    .sort((a, b) => (dueOf(a) < dueOf(b) ? -1 : dueOf(a) > dueOf(b) ? 1 : positionOf(a) - positionOf(b)))

export const claimDeliveries =
  (sql: SqlClient) =>
  (options: ClaimOptions): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
    Effect.map(
      sql.unsafe<ClaimedRow>(claimSql, [
        options.now,
        Math.max(0, Math.floor(options.limit)),
        options.owner,
        options.leaseUntil,
        [...(options.skipWebhooks ?? [])],
        options.perWebhook === undefined ? Math.max(0, Math.floor(options.limit)) : Math.max(0, Math.floor(options.perWebhook))
      ]),
      inClaimOrder
    )
