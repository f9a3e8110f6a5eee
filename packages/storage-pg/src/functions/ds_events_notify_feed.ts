import { type RecordTypePlugin, recordTypeSet } from "@dealstream/core"
import type { StoredFunction } from "./StoredFunction.js"

/**
 * Every host is told, once the commit is stored, which workspaces' feeds gained record events, so a
 * long-polling reader wakes at once: the function of a statement trigger over the rows one insert
 * added (ds_events_feed_notify, migration 0014), one notification per workspace (PostgreSQL folds
 * repeats within a transaction, so a group commit's many commits of one workspace tell it once).
 * The types are core's feedPrefixes (record/recordTypeSet.ts), spelled in from there: every record
 * type's, a plug-in's included; commits of other events (deliveries' attempts) tell nobody.
 */

/** A LIKE pattern matching the types that start with `prefix`, as a string literal. */
const startsWith = (prefix: string) => `'${prefix.replace(/[\\%_]/g, "\\$&").replace(/'/g, "''")}%'`

export const ds_events_notify_feed = (plugins: ReadonlyArray<RecordTypePlugin>): StoredFunction => ({
  name: "ds_events_notify_feed",
  text: `CREATE OR REPLACE FUNCTION ds_events_notify_feed() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      PERFORM pg_notify('dealstream_feed', json_build_object('_tag', 'Appended', 'workspaceId', w)::text)
        FROM (SELECT DISTINCT workspace_id AS w FROM appended
          WHERE ${recordTypeSet(plugins)
            .feedPrefixes.map((prefix) => `type LIKE ${startsWith(prefix)}`)
            .join(" OR ")}) AS fed;
      RETURN NULL;
    END
    $f$`
})
