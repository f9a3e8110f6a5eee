import type { Migration } from "./Migration.js"

/**
 * A stream's version row names the workspace whose log takes its new events. Since migration 0017's
 * days every stream's events are in one workspace's log, but for one kind: API keys made before keys
 * had a workspace of their own began with their created event in the reserved workspace `$system`,
 * and their later events go to the key's workspace (core's apiKeyAggregate.workspaceOf). Their
 * version rows kept `$system`. The commit finds a stream's row by its workspace and id (on Citus,
 * the workspace says which worker: citus.ts), so those rows move to the key's workspace, named by the
 * created event. The events stay where they were written.
 *
 * A row moves by delete and insert, not UPDATE: Citus refuses to change a row's distribution column
 * ("modifying the partition value of rows is not allowed"), and the join names the `$system`
 * workspace on both tables, so the delete is one worker's.
 */
export const streamRowsInTheirLog = `WITH moved AS (
    DELETE FROM ds_streams AS s USING ds_events AS e
    WHERE s.workspace_id = '$system' AND e.workspace_id = s.workspace_id AND e.stream_id = s.stream_id
      AND e.stream_version = 1 AND e.type = 'api_key.created' AND e.data ->> 'workspace_id' IS NOT NULL
    RETURNING s.stream_id, e.data ->> 'workspace_id' AS workspace_id, s.version
  )
  INSERT INTO ds_streams (stream_id, workspace_id, version) SELECT stream_id, workspace_id, version FROM moved`

export const migration: Migration = {
  id: 27,
  name: "stream rows in their log",
  statements: [streamRowsInTheirLog]
}
