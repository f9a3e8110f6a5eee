import type { StoredFunction } from "./StoredFunction.js"
import { type Layout, localStatement } from "./workspaceRows.js"

/**
 * The row triggers' functions that keep each collection's duplicate keys and their groups in step
 * with its documents (migration 0031 says why, and creates the tables, the key functions and the
 * triggers): an insert adds the live document's keys, an update (fired only when the data or the
 * deletion changed) removes the keys it lost and adds those it gained, a delete removes them all.
 */

export const duplicateKeyCollections: ReadonlyArray<{ readonly table: string; readonly type: string }> = [
  { table: "ds_contacts", type: "contact" },
  { table: "ds_companies", type: "company" }
]

const triggerFunction = (name: string, body: string): StoredFunction => ({
  name,
  text: `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    k record;
  BEGIN
    ${body}
    RETURN NULL;
  END
  $$`
})

const functionsOf = (layout: Layout, { table, type }: { readonly table: string; readonly type: string }): ReadonlyArray<StoredFunction> => {
  const keys = `${table}_duplicate_keys`
  const groups = `${table}_duplicate_groups`
  const fn = `ds_${type}_duplicate_keys`
  const live = (row: "OLD" | "NEW") => `SELECT x.rule, x.key FROM ${fn}(${row}.data, ${row}.folded) AS x WHERE ${row}.deleted_at IS NULL`
  const ofOld = { workspace: "OLD.workspace_id", params: ["OLD.workspace_id", "k.rule", "k.key"] }
  const remove = (gone: string) => `FOR k IN ${gone} LOOP
      ${localStatement(layout, {
        table: keys,
        ...ofOld,
        sql: "DELETE FROM {t} WHERE workspace_id = $1 AND rule = $2 AND key = $3 AND id = $4",
        params: [...ofOld.params, "OLD.id"]
      })}
      ${localStatement(layout, { table: groups, ...ofOld, sql: "UPDATE {t} SET n = n - 1 WHERE workspace_id = $1 AND rule = $2 AND key = $3" })}
      ${localStatement(layout, { table: groups, ...ofOld, sql: "DELETE FROM {t} WHERE workspace_id = $1 AND rule = $2 AND key = $3 AND n <= 0" })}
    END LOOP;`
  const ofNew = { workspace: "NEW.workspace_id", params: ["NEW.workspace_id", "k.rule", "k.key"] }
  const add = (came: string) => `FOR k IN ${came} LOOP
      ${localStatement(layout, {
        table: keys,
        ...ofNew,
        sql: "INSERT INTO {t} (workspace_id, rule, key, id) VALUES ($1, $2, $3, $4)",
        params: [...ofNew.params, "NEW.id"]
      })}
      ${localStatement(layout, {
        table: groups,
        ...ofNew,
        sql: "INSERT INTO {t} AS g (workspace_id, rule, key, n) VALUES ($1, $2, $3, 1) ON CONFLICT (workspace_id, rule, key) DO UPDATE SET n = g.n + 1"
      })}
    END LOOP;`
  return [
    triggerFunction(`${keys}_inserted`, add(live("NEW"))),
    triggerFunction(
      `${keys}_updated`,
      `${remove(`${live("OLD")} EXCEPT ${live("NEW")}`)}\n    ${add(`${live("NEW")} EXCEPT ${live("OLD")}`)}`
    ),
    triggerFunction(`${keys}_deleted`, remove(live("OLD"))),
    triggerFunction(`${keys}_truncated`, `TRUNCATE ${keys}, ${groups};`)
  ]
}

export const duplicateKeys = (layout: Layout): ReadonlyArray<StoredFunction> =>
  duplicateKeyCollections.flatMap((collection) => functionsOf(layout, collection))
