import { searchWordLength, searchWordTables } from "../tables.js"
import type { StoredFunction } from "./StoredFunction.js"
import { type Layout, localStatement } from "./workspaceRows.js"

/**
 * The row triggers' functions that keep each words table in step with its document table's
 * `search_words` (migration 0011 says why row triggers, and creates the triggers): four per
 * searched collection of tables.ts. Words are stored cut to searchWordLength characters (a search
 * has at most that many), which keeps every key far below the btree's limit however long a
 * whole-word value is; the query rechecks `search_words`, so the cut words only select a superset.
 */

const cut = (word: string) => `left(${word}, ${searchWordLength})`

const triggerFunction = (name: string, body: string): StoredFunction => ({
  name,
  text: `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    ${body}
    RETURN NULL;
  END
  $$`
})

/** NEW's words added to the words table. */
const insertNew = (layout: Layout, words: string) =>
  localStatement(layout, {
    table: words,
    workspace: "NEW.workspace_id",
    sql: `INSERT INTO {t} (workspace_id, word, id)
      SELECT $1, ${cut("x.word")}, $2 FROM unnest($3::text[]) AS x(word)
      ON CONFLICT DO NOTHING`,
    params: ["NEW.workspace_id", "NEW.id", "NEW.search_words"]
  })

/** OLD's words removed from the words table, but for those `keep` (a text[] expression) holds. */
const deleteOld = (layout: Layout, words: string, keep: string) =>
  localStatement(layout, {
    table: words,
    workspace: "OLD.workspace_id",
    sql: `DELETE FROM {t} AS w
      WHERE w.workspace_id = $1 AND w.id = $2
        AND w.word = ANY (ARRAY(SELECT ${cut("x.word")} FROM unnest($3::text[]) AS x(word)))
        AND w.word <> ALL ($4::text[])`,
    params: ["OLD.workspace_id", "OLD.id", "OLD.search_words", keep]
  })

const functionsOf = (layout: Layout, words: string): ReadonlyArray<StoredFunction> => [
  triggerFunction(`${words}_inserted`, insertNew(layout, words)),
  // An update fires only when the words changed (the trigger's WHEN): the words gone, then the new.
  triggerFunction(
    `${words}_updated`,
    `${deleteOld(layout, words, `ARRAY(SELECT ${cut("y.word")} FROM unnest(NEW.search_words) AS y(word))`)}
    ${insertNew(layout, words)}`
  ),
  triggerFunction(`${words}_deleted`, deleteOld(layout, words, "'{}'::text[]")),
  // A rebuild empties the document table with a TRUNCATE, and its words with one too.
  triggerFunction(`${words}_truncated`, `TRUNCATE ${words};`)
]

export const searchWords = (layout: Layout): ReadonlyArray<StoredFunction> =>
  Object.values(searchWordTables).flatMap((words) => (words === undefined ? [] : functionsOf(layout, words)))
