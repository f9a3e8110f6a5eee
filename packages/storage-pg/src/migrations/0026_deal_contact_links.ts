import type { Migration } from "./Migration.js"

/**
 * A contact's deal_ids from a table of links rather than a GIN search per contact: one row per
 * (workspace, contact id, deal id) for each string a live deal's `contact_ids` holds. A list or
 * export page found each of its contacts' deals through the GIN index on the deals' contact_ids,
 * about 12 µs a contact, two thirds of PostgreSQL's time for a page of 100 (bench/ANALYSIS.md,
 * issue 34); one search for the whole page's ids was slower still. Here a contact's deals are a
 * range of the primary key, in deal id order.
 *
 * Row triggers on ds_deals keep it, as 0011's keep the words tables: whatever writes a deal (the
 * commit functions, a rebuild, a purge, a seed) keeps its links, no writer having to know. An update
 * that changes neither contact_ids nor deleted_at (a stage move) does not fire. The functions are
 * stubs here, their text functions/dealContactLinks.ts's (applied after the migrations, in the same
 * transaction). The fill runs after the triggers exist: CREATE TRIGGER locks out writes to ds_deals
 * until the migration commits, so no deal written meanwhile is missed.
 */

const links = "ds_deal_contacts"

/**
 * A stand-in for the function the triggers name, unless it exists: the functions' files may have
 * been applied before this migration runs (a database migrated one step at a time by today's code,
 * as schemaConverges.pg.spec.ts does), and their text must then stay.
 */
const stub = (name: string) =>
  `DO $do$ BEGIN
    IF to_regprocedure('${name}()') IS NULL THEN
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END';
    END IF;
  END $do$`

export const migration: Migration = {
  id: 26,
  name: "deal contact links",
  statements: [
    `CREATE TABLE ${links} (
      workspace_id text COLLATE "C" NOT NULL,
      contact_id text COLLATE "C" NOT NULL,
      deal_id text COLLATE "C" NOT NULL,
      PRIMARY KEY (workspace_id, contact_id, deal_id)
    )`,
    ...["inserted", "updated", "deleted", "truncated"].map((what) => stub(`${links}_${what}`)),
    `CREATE TRIGGER ${links}_inserted AFTER INSERT ON ds_deals FOR EACH ROW EXECUTE FUNCTION ${links}_inserted()`,
    `CREATE TRIGGER ${links}_updated AFTER UPDATE ON ds_deals FOR EACH ROW
      WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.data -> 'contact_ids' IS DISTINCT FROM NEW.data -> 'contact_ids')
      EXECUTE FUNCTION ${links}_updated()`,
    `CREATE TRIGGER ${links}_deleted AFTER DELETE ON ds_deals FOR EACH ROW EXECUTE FUNCTION ${links}_deleted()`,
    `CREATE TRIGGER ${links}_truncated AFTER TRUNCATE ON ds_deals FOR EACH STATEMENT EXECUTE FUNCTION ${links}_truncated()`,
    `INSERT INTO ${links} (workspace_id, contact_id, deal_id)
      SELECT d.workspace_id, e.value #>> '{}', d.id
      FROM ds_deals AS d CROSS JOIN LATERAL jsonb_array_elements(
        CASE WHEN jsonb_typeof(d.data -> 'contact_ids') = 'array' THEN d.data -> 'contact_ids' ELSE '[]' END) AS e(value)
      WHERE d.deleted_at IS NULL AND jsonb_typeof(e.value) = 'string'
      ON CONFLICT DO NOTHING`
  ]
}
