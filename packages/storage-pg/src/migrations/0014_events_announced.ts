import type { Migration } from "./Migration.js"

/**
 * What the change feed needs beyond its order (0013):
 * - An event's announced payload (`metadata.payload`, the record as the API showed it at commit)
 *   shows personal data as the event's data does, so it goes when a purge redacts the data. A row
 *   trigger, so every way of redacting (ds_commit's, and any later one) drops it.
 * - Every host is told, once the commit is stored, which workspaces' feeds gained record events,
 *   so a long-polling reader wakes at once: a statement trigger over the rows one insert added,
 *   one notification per workspace (PostgreSQL folds repeats within a transaction, so a group
 *   commit's many commits of one workspace tell it once). The prefixes are core's
 *   FEED_TYPE_PREFIXES; commits of other events (deliveries' attempts) tell nobody.
 * - GET /v1/events/:id finds an event by its public id within its workspace.
 */
export const migration: Migration = {
  id: 14,
  name: "events announced",
  statements: [
    `CREATE FUNCTION ds_events_drop_redacted_payload() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      NEW.metadata := NEW.metadata - 'payload';
      RETURN NEW;
    END
    $f$`,
    `CREATE TRIGGER ds_events_redacted_payload BEFORE UPDATE OF data ON ds_events
      FOR EACH ROW WHEN (NEW.data = '{"redacted": true}'::jsonb AND OLD.metadata ? 'payload')
      EXECUTE FUNCTION ds_events_drop_redacted_payload()`,
    `CREATE FUNCTION ds_events_notify_feed() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      PERFORM pg_notify('dealstream_feed', json_build_object('_tag', 'Appended', 'workspaceId', w)::text)
        FROM (SELECT DISTINCT workspace_id AS w FROM appended WHERE type LIKE 'contact.%' OR type LIKE 'deal.%') AS fed;
      RETURN NULL;
    END
    $f$`,
    `CREATE TRIGGER ds_events_feed_notify AFTER INSERT ON ds_events
      REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION ds_events_notify_feed()`,
    `CREATE INDEX ds_events_workspace_event_id ON ds_events (workspace_id, (metadata->>'eventId'))`
  ]
}
