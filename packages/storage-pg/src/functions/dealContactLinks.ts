import { tables } from "../tables.js"
import type { StoredFunction } from "./StoredFunction.js"
import { type Layout, localStatement } from "./workspaceRows.js"

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
    ${body}
    RETURN NULL;
  END
  $$`
})

/** The strings of a deal's contact_ids (`data`, an expression), as rows `e(value)` of jsonb; none when it holds no array. */
const elementsOf = (data: string) =>
  `jsonb_array_elements(CASE WHEN jsonb_typeof(${data} -> 'contact_ids') = 'array' THEN ${data} -> 'contact_ids' ELSE '[]' END) AS e(value)`

// A row trigger fires on the deal's shard, so on Citus the links' shard of its workspace is here.
const insertNew = (layout: Layout) =>
  localStatement(layout, {
    table: links,
    workspace: "NEW.workspace_id",
    sql: `INSERT INTO {t} (workspace_id, contact_id, deal_id)
      SELECT $1, e.value #>> '{}', $2 FROM ${elementsOf("$3")}
      WHERE $4 AND jsonb_typeof(e.value) = 'string'
      ON CONFLICT DO NOTHING`,
    params: ["NEW.workspace_id", "NEW.id", "NEW.data", "NEW.deleted_at IS NULL"]
  })

const deleteOld = (layout: Layout) =>
  localStatement(layout, {
    table: links,
    workspace: "OLD.workspace_id",
    sql: `DELETE FROM {t} AS l
      WHERE l.workspace_id = $1 AND l.deal_id = $2
        AND l.contact_id IN (SELECT e.value #>> '{}' FROM ${elementsOf("$3")})`,
    params: ["OLD.workspace_id", "OLD.id", "OLD.data"]
  })

export const dealContactLinks = (layout: Layout): ReadonlyArray<StoredFunction> => [
  triggerFunction(`${links}_inserted`, insertNew(layout)),
  // An update fires only when contact_ids or deleted_at changed (the trigger's WHEN): the old links
  // gone, then the new.
  triggerFunction(`${links}_updated`, `${deleteOld(layout)}\n    ${insertNew(layout)}`),
  triggerFunction(`${links}_deleted`, deleteOld(layout)),
  // A rebuild empties ds_deals with a TRUNCATE, and the links with one too.
  triggerFunction(`${links}_truncated`, `TRUNCATE ${links};`)
]
