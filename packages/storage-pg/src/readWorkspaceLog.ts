import type { ChangeFeedEvent, ChangeFeedPosition, StorageService } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { eventColumns, type EventRow, toStoredEvent } from "./internal/eventRow.js"
import { tables } from "./tables.js"

/** Before every event: events written before transaction ids were recorded read "0" (0009), sequences start at 1. */
const START: ChangeFeedPosition = { transaction: "0", sequence: 0 }
/** After every event: the highest xid8 and bigint. */
const END: ChangeFeedPosition = { transaction: "18446744073709551615", sequence: Number.MAX_SAFE_INTEGER }

/** What a walk asks for: storage.readWorkspaceLog's options. */
type WalkOptions = Parameters<StorageService["readWorkspaceLog"]>[0]

const whole = (n: number) => String(Math.max(0, Math.floor(n)))
const transaction = (position: ChangeFeedPosition) => {
  if (!/^\d+$/.test(position.transaction)) throw new Error(`a feed position of an unknown form: ${position.transaction}`)
  return position.transaction
}

/**
 * One workspace's events in a range of feed positions, in the feed's order (transaction key, then
 * sequence; readFeed.ts): a range of ds_events_workspace_feed (0013), on Citus a router query on
 * the workspace's worker. The key is the feed's, so a workspace moved to another worker goes on
 * after its old events (internal/feedOffset.ts), where its sequences, from the new worker's range,
 * may be lower. No bound is taken: this is a walk up to a head read before, not a feed.
 * `typed`: with the types as `$7`.
 */
export const readWorkspaceLogSql = (typed: boolean) =>
  `SELECT xact_id::text AS xact, ${eventColumns} FROM ${tables.events} WHERE workspace_id = $1 ` +
  `AND (xact_id, sequence) > ($2::xid8, $3::bigint) AND (xact_id, sequence) <= ($4::xid8, $5::bigint)` +
  `${typed ? " AND type = ANY($7::text[])" : ""} ORDER BY xact_id, sequence LIMIT $6::int`

/** The statement's parameters, in its order. */
export const readWorkspaceLogParams = (options: WalkOptions): Array<unknown> => {
  const after = options.after ?? START
  const until = options.until ?? END
  const params: Array<unknown> = [
    options.workspaceId,
    transaction(after),
    whole(after.sequence),
    transaction(until),
    until === END ? "9223372036854775807" : whole(until.sequence),
    whole(options.limit)
  ]
  if (options.types !== undefined) params.push(options.types)
  return params
}

export const readWorkspaceLog =
  (sql: SqlClient) =>
  (options: WalkOptions): Effect.Effect<ReadonlyArray<ChangeFeedEvent>, SqlError> =>
    Effect.suspend(() =>
      Effect.map(
        sql.unsafe<EventRow & { readonly xact: string }>(readWorkspaceLogSql(options.types !== undefined), readWorkspaceLogParams(options)),
        (rows) => rows.map((row) => ({ ...toStoredEvent(row), position: { transaction: row.xact, sequence: Number(row.sequence) } }))
      )
    )
