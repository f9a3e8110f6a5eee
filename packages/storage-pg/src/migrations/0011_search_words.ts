import type { Migration } from "./Migration.js"

/**
 * Search from an index: each searched document table (contacts and deals, the aggregates marked
 * `searched`) gets a words table, one row per (workspace, word, document), whose primary key is a
 * btree in code-point order (COLLATE "C"), so "a word starts with t" is one range scan
 * `t <= word < next(t)` (compileExpr.ts), bounds as parameters. A table per document table and not
 * one shared: its planner statistics are its collection's, and a rebuild's TRUNCATE of the
 * document table empties it with a TRUNCATE too, not a delete of millions of rows.
 *
 * Words are stored cut to their first 200 characters (a search has at most 200), which keeps every
 * key far below the btree's limit of about 2,700 bytes however long a whole-word value is; the
 * query rechecks `search_words`, so the cut words only have to select a superset.
 *
 * Row triggers keep the table in step with `search_words`. An update fires only when the words
 * changed (`WHEN`, checked without calling the function: a stage move, a soft delete or a restore
 * keeps them, the query's scope reads deleted_at), and then deletes the words gone and inserts the
 * new ones. Statement triggers with transition tables were measured first: they cost a bulk load
 * less, but every commit more (ds_commit upserts one document per statement, and each fired both
 * the INSERT and the UPDATE statement trigger with their transition tables). 2,000 creates through
 * the engine at concurrency 8, on the shared machine: 3,990–5,637/s without triggers, 3,012–3,516/s
 * with statement triggers, 3,815–3,833/s with row triggers.
 *
 * The triggers come first: CREATE TRIGGER locks the document table against writes until the
 * migration commits, so the fill below misses none; the key is added after the fill (one sort).
 */

const WORD_LENGTH = 200

const searched: ReadonlyArray<readonly [string, string]> = [
  ["ds_contacts", "ds_contacts_words"],
  ["ds_deals", "ds_deals_words"]
]

const cut = (word: string) => `left(${word}, ${WORD_LENGTH})`

const triggerFunction = (name: string, body: string) =>
  `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    ${body};
    RETURN NULL;
  END
  $$`

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

const wordsOf = ([table, words]: readonly [string, string]) => [
  `CREATE TABLE ${words} (
    workspace_id text COLLATE "C" NOT NULL,
    word text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL
  )`,
  triggerFunction(`${words}_inserted`, insertNew(words)),
  triggerFunction(
    `${words}_updated`,
    `${deleteOld(words, `ARRAY(SELECT ${cut("y.word")} FROM unnest(NEW.search_words) AS y(word))`)};
    ${insertNew(words)}`
  ),
  triggerFunction(`${words}_deleted`, deleteOld(words, "'{}'::text[]")),
  triggerFunction(`${words}_truncated`, `TRUNCATE ${words}`),
  `CREATE TRIGGER ${words}_inserted AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${words}_inserted()`,
  `CREATE TRIGGER ${words}_updated AFTER UPDATE ON ${table} FOR EACH ROW
    WHEN (OLD.search_words IS DISTINCT FROM NEW.search_words) EXECUTE FUNCTION ${words}_updated()`,
  `CREATE TRIGGER ${words}_deleted AFTER DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${words}_deleted()`,
  `CREATE TRIGGER ${words}_truncated AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${words}_truncated()`,
  `INSERT INTO ${words} (workspace_id, word, id)
    SELECT DISTINCT t.workspace_id, ${cut("x.word")}, t.id FROM ${table} AS t, unnest(t.search_words) AS x(word)`,
  `ALTER TABLE ${words} ADD PRIMARY KEY (workspace_id, word, id)`,
  `ANALYZE ${words}`
]

export const migration: Migration = {
  id: 11,
  name: "search words",
  statements: searched.flatMap(wordsOf)
}
