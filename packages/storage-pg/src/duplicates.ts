import type { DuplicateCollection, DuplicateGroup, DuplicateKey } from "@dealstream/core"
import type { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { itself, type Named, type Reader } from "./reader.js"
import { documentTables } from "./tables.js"

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
  limit: number,
  name: Named = itself
): { readonly text: string; readonly params: ReadonlyArray<string | number> } => {
  const table = `${documentTables[collection]}_duplicate`
  return {
    text: `SELECT g.rule, g.key, ARRAY(
           SELECT k.id FROM ${name(`${table}_keys`)} AS k WHERE k.workspace_id = $1 AND k.rule = g.rule AND k.key = g.key ORDER BY k.id
         ) AS ids
         FROM ${name(`${table}_groups`)} AS g
         WHERE g.workspace_id = $1 AND g.n > 1 AND (g.rule, g.key) > ($2::text COLLATE "C", $3::text COLLATE "C")
         ORDER BY g.rule, g.key LIMIT $4::int`,
    params: [workspaceId, after?.rule ?? "", after?.key ?? "", limit]
  }
}

/** A page of duplicate groups (duplicatePageQuery), where `reader` reads. */
export const duplicates =
  (reader: Reader) =>
  (
    collection: DuplicateCollection,
    workspaceId: string,
    after: DuplicateKey | null,
    limit: number
  ): Effect.Effect<ReadonlyArray<DuplicateGroup>, SqlError> =>
    reader.page<DuplicateGroup>(workspaceId, (name) => duplicatePageQuery(collection, workspaceId, after, limit, name))
