import type { StoredFunction } from "./StoredFunction.js"

/**
 * An event's announced payload (`metadata.payload`, the record as the API showed it at commit)
 * shows personal data as the event's data does, so it goes when a purge redacts the data. A row
 * trigger's function (ds_events_redacted_payload, migration 0014), so every way of redacting drops it.
 */
export const ds_events_drop_redacted_payload: StoredFunction = {
  name: "ds_events_drop_redacted_payload",
  text: `CREATE OR REPLACE FUNCTION ds_events_drop_redacted_payload() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      NEW.metadata := NEW.metadata - 'payload';
      RETURN NEW;
    END
    $f$`
}
