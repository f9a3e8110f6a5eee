import type { Migration } from "./Migration.js"

/**
 * A purge finds the deliveries of the purged record's events (to erase its data from their
 * payloads) by `event_stream_id`: an index on that key, spelled as fieldSql.ts compiles an `id`
 * field (a frozen copy as of this step), then id for the keyset the engine reads in batches.
 * Deliveries are never soft-deleted; the index is partial on live rows like every list index.
 */
const text = (key: string) => `((CASE WHEN jsonb_typeof(data -> '${key}') = 'string' THEN data ->> '${key}' END) COLLATE "C")`

export const migration: Migration = {
  id: 8,
  name: "deliveries_by_event_stream",
  statements: [
    `CREATE INDEX ds_deliveries_event_stream ON ds_deliveries (workspace_id, ${text("event_stream_id")}, id) WHERE deleted_at IS NULL`
  ]
}
