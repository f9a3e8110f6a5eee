import { searchWordLength, searchWordTables } from "../tables.js"
import type { StoredFunction } from "./StoredFunction.js"

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
    ${body};
    RETURN NULL;
  END
  $$`
})

/** NEW's words added to the words table. */
const insertNew = (words: string) =>
  `INSERT INTO ${words} (workspace_id, word, id)
      SELECT NEW.workspace_id, ${cut("x.word")}, NEW.id FROM unnest(NEW.search_words) AS x(word)
      ON CONFLICT DO NOTHING`

/** OLD's words removed from the words table, but for those `keep` (a text[] expression) holds. */
const deleteOld = (words: string, keep: string) =>
  `DELETE FROM ${words} AS w
      WHERE w.workspace_id = OLD.workspace_id AND w.id = OLD.id
        AND w.word = ANY (ARRAY(SELECT ${cut("x.word")} FROM unnest(OLD.search_words) AS x(word)))
        AND w.word <> ALL (${keep})`

const functionsOf = (words: string): ReadonlyArray<StoredFunction> => [
  triggerFunction(`${words}_inserted`, insertNew(words)),
  // An update fires only when the words changed (the trigger's WHEN): the words gone, then the new.
  triggerFunction(
    `${words}_updated`,
    `${deleteOld(words, `ARRAY(SELECT ${cut("y.word")} FROM unnest(NEW.search_words) AS y(word))`)};
    ${insertNew(words)}`
  ),
  triggerFunction(`${words}_deleted`, deleteOld(words, "'{}'::text[]")),
  // A rebuild empties the document table with a TRUNCATE, and its words with one too.
  triggerFunction(`${words}_truncated`, `TRUNCATE ${words}`)
]

export const searchWords: ReadonlyArray<StoredFunction> = Object.values(searchWordTables).flatMap((words) =>
  words === undefined ? [] : functionsOf(words)
)
