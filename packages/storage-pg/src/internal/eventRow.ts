import type { EventMetadata, JsonObject, StoredEvent } from "@dealstream/core"

/**
 * The columns of ds_events as the adapter reads them; recorded_at in toISOString() form, made by
 * the server, so the port's string does not depend on how the driver decodes timestamptz.
 */
export const eventColumns =
  `sequence, stream_id, stream_version, type, data, metadata, ` +
  `to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded_at`

export interface EventRow {
  /** int8 arrives as a bigint from @effect/sql-pg; the port counts in numbers (2^53 is far off). */
  readonly sequence: bigint
  readonly stream_id: string
  readonly stream_version: number
  readonly type: string
  readonly data: JsonObject
  readonly metadata: EventMetadata
  readonly recorded_at: string
}

export const toStoredEvent = (row: EventRow): StoredEvent => ({
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  sequence: Number(row.sequence),
  streamId: row.stream_id,
  streamVersion: row.stream_version,
  recordedAt: row.recorded_at
})
