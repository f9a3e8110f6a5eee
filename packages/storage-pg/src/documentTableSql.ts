import { valueSql } from "./fieldSql.js"

/**
 * The statements that create a document table of the shape every module here reads and writes, for
 * a record type plug-in's migration (core's RecordTypePlugin): the columns, key and indexes of the
 * built-in tables (migration 0002 says what each column holds), and the list indexes every
 * built-in record type's table has, on live rows by `created_at` and by `updated_at` (the default
 * list order and the other standard sortable field), their keys the query compiler's own
 * expressions (fieldSql.ts), so the planner matches them. A plug-in's migration adds what its own
 * fields need. The migrations keep frozen copies of their own; this is the current one.
 *
 * `table` must be a name documentTableMap.ts accepts, at most 52 characters.
 */
export const documentTableSql = (table: string): ReadonlyArray<string> => [
  `CREATE TABLE ${table} (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    deleted_at text COLLATE "C",
    data jsonb NOT NULL,
    unique_key text COLLATE "C",
    search_words text[] COLLATE "C" NOT NULL DEFAULT '{}',
    folded jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (workspace_id, id)
  )`,
  // The trash list and the purge sweep read only soft-deleted rows.
  `CREATE INDEX ${table}_deleted ON ${table} (workspace_id, deleted_at, id) WHERE deleted_at IS NOT NULL`,
  // Partial: a null key (a soft-deleted record's) takes part in no uniqueness. commit.ts reads the
  // table back from this index's name.
  `CREATE UNIQUE INDEX ${table}_unique_key ON ${table} (workspace_id, unique_key) WHERE unique_key IS NOT NULL`,
  ...["created_at", "updated_at"].map(
    (field) =>
      `CREATE INDEX ${table}_${field} ON ${table} (workspace_id, (${valueSql({ name: field, type: "timestamp" })}), id) WHERE deleted_at IS NULL`
  )
]
