import type { DuplicateCollection, DuplicateGroup, DuplicateKey } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

const tablesOf: Readonly<Record<DuplicateCollection, string>> = {
  contact: "ds_contacts_duplicate",
  company: "ds_companies_duplicate"
}

/**
 * The statement of a page of duplicate groups (migration 0031), with its parameters: a range of the
 * groups' partial index of keys held more than once, after the cursor, and per group the ids
 * holding its key, one range of the keys' primary key each. Every table is named by the workspace:
 * one worker's on Citus. queryPlans of duplicates (duplicatePlans.pg.spec.ts) EXPLAINs this text.
 */
export const duplicatePageQuery = (
  collection: DuplicateCollection,
  workspaceId: string,
  after: DuplicateKey | null,
  limit: number
): { readonly text: string; readonly params: ReadonlyArray<string | number> } => {
  const table = tablesOf[collection]
  return {
    text: `SELECT g.rule, g.key, ARRAY(
           SELECT k.id FROM ${table}_keys AS k WHERE k.workspace_id = $1 AND k.rule = g.rule AND k.key = g.key ORDER BY k.id
         ) AS ids
         FROM ${table}_groups AS g
         WHERE g.workspace_id = $1 AND g.n > 1 AND (g.rule, g.key) > ($2::text COLLATE "C", $3::text COLLATE "C")
         ORDER BY g.rule, g.key LIMIT $4`,
    params: [workspaceId, after?.rule ?? "", after?.key ?? "", limit]
  }
}

/** A page of duplicate groups (duplicatePageQuery). */
export const duplicates =
  (sql: SqlClient) =>
  (
    collection: DuplicateCollection,
    workspaceId: string,
    after: DuplicateKey | null,
    limit: number
  ): Effect.Effect<ReadonlyArray<DuplicateGroup>, SqlError> => {
    const query = duplicatePageQuery(collection, workspaceId, after, limit)
    return Effect.map(
      sql.unsafe<{ readonly rule: string; readonly key: string; readonly ids: ReadonlyArray<string> }>(query.text, query.params),
      (rows) => rows.map((row) => ({ rule: row.rule, key: row.key, ids: [...row.ids] }))
    )
  }
