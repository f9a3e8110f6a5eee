import { tables } from "../tables.js"
import type { StoredFunction } from "./StoredFunction.js"

/**
 * The row triggers' functions that keep ds_deal_contacts in step with ds_deals (migration 0026 says
 * why the table, and creates the triggers): a live deal's links are the strings of its
 * `contact_ids`, a deleted deal has none.
 */

const links = tables.dealContacts

const triggerFunction = (name: string, body: string): StoredFunction => ({
  name,
  text: `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    ${body};
    RETURN NULL;
  END
  $$`
})

/** The strings of a row's contact_ids, as rows `e(value)` of jsonb; none when it holds no array. */
const elementsOf = (row: string) =>
  `jsonb_array_elements(CASE WHEN jsonb_typeof(${row}.data -> 'contact_ids') = 'array' THEN ${row}.data -> 'contact_ids' ELSE '[]' END) AS e(value)`

const insertNew = `INSERT INTO ${links} (workspace_id, contact_id, deal_id)
      SELECT NEW.workspace_id, e.value #>> '{}', NEW.id FROM ${elementsOf("NEW")}
      WHERE NEW.deleted_at IS NULL AND jsonb_typeof(e.value) = 'string'
      ON CONFLICT DO NOTHING`

const deleteOld = `DELETE FROM ${links} AS l
      WHERE l.workspace_id = OLD.workspace_id AND l.deal_id = OLD.id
        AND l.contact_id IN (SELECT e.value #>> '{}' FROM ${elementsOf("OLD")})`

export const dealContactLinks: ReadonlyArray<StoredFunction> = [
  triggerFunction(`${links}_inserted`, insertNew),
  // An update fires only when contact_ids or deleted_at changed (the trigger's WHEN): the old links
  // gone, then the new.
  triggerFunction(`${links}_updated`, `${deleteOld};\n    ${insertNew}`),
  triggerFunction(`${links}_deleted`, deleteOld),
  // A rebuild empties ds_deals with a TRUNCATE, and the links with one too.
  triggerFunction(`${links}_truncated`, `TRUNCATE ${links}`)
]
