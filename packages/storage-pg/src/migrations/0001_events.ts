import type { Migration } from "./Migration.js"

/**
 * The log. `sequence` is the global position; (stream_id, stream_version) is unique, which is what
 * makes optimistic concurrency hold even without ds_streams. ds_streams keeps each stream's version
 * in one row, so a commit checks and bumps it with a row lock instead of reading the log's tail.
 * Streams are addressed by id alone (readStream has no workspace), so these indexes lead with it;
 * workspace_id is still a column of every row for sharding by workspace.
 */
export const migration: Migration = {
  id: 1,
  name: "events",
  statements: [
    `CREATE TABLE ds_streams (
      stream_id text COLLATE "C" PRIMARY KEY,
      workspace_id text COLLATE "C" NOT NULL,
      version integer NOT NULL
    )`,
    `CREATE TABLE ds_events (
      sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      stream_id text COLLATE "C" NOT NULL,
      stream_version integer NOT NULL,
      workspace_id text COLLATE "C" NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      recorded_at timestamptz NOT NULL,
      CONSTRAINT ds_events_stream_version UNIQUE (stream_id, stream_version)
    )`
  ]
}
