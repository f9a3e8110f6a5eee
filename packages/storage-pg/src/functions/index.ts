import { builtInTables, type DocumentTableMap } from "../documentTableMap.js"
import { dealContactLinks } from "./dealContactLinks.js"
import { ds_commit } from "./ds_commit.js"
import { ds_commit_batch } from "./ds_commit_batch.js"
import { ds_commit_batch_in } from "./ds_commit_batch_in.js"
import { ds_commit_set } from "./ds_commit_set.js"
import { ds_commit_with_settings } from "./ds_commit_with_settings.js"
import { ds_commit_at, ds_commit_batch_at, ds_commit_with_settings_at } from "./committedAt.js"
import { ds_events_drop_redacted_payload } from "./ds_events_drop_redacted_payload.js"
import { ds_events_notify_feed } from "./ds_events_notify_feed.js"
import { ds_feed_bound_in } from "./ds_feed_bound_in.js"
import { ds_read_in } from "./ds_read_in.js"
import { ds_shards_here, generationOf, viewedIn } from "./ds_shards_here.js"
import { ds_workspace_here } from "./ds_workspace_here.js"
import { searchWords } from "./searchWords.js"
import type { StoredFunction } from "./StoredFunction.js"
import type { Layout } from "./workspaceRows.js"
import { dealFigures } from "./dealFigures.js"
import { duplicateKeys } from "./duplicateKeys.js"

export type { StoredFunction } from "./StoredFunction.js"

/**
 * Every stored function of the schema of a storage serving `tableMap`'s collections, as it runs
 * today (see StoredFunction.ts): the commit functions write its tables, the feed trigger tells of
 * its plug-ins' events; on Citus they write a workspace's shards directly (workspaceRows.ts).
 */
export const functionsOf = (tableMap: DocumentTableMap, layout: Layout = "plain"): ReadonlyArray<StoredFunction> =>
  layout === "citus"
    ? citusFunctionsOf(tableMap).functions
    : // On one server nothing calls it (as ds_commit_batch_in): one text, whatever the tables.
      [...functionsWriting(tableMap, layout), ds_shards_here([], "plain")]

/** The same on Citus, with the generation of the views they make (functions/ds_shards_here.ts). */
export const citusFunctionsOf = (
  tableMap: DocumentTableMap
): { readonly functions: ReadonlyArray<StoredFunction>; readonly hereGeneration: string } => {
  const writing = functionsWriting(tableMap, "citus")
  const texts = writing.map((f) => f.text)
  const hereGeneration = generationOf(texts)
  return { functions: [...writing, ds_shards_here(viewedIn(texts), hereGeneration)], hereGeneration }
}

const functionsWriting = (tableMap: DocumentTableMap, layout: Layout): ReadonlyArray<StoredFunction> => [
  ds_commit(tableMap.list, layout),
  ds_commit_with_settings(layout),
  ds_commit_set(tableMap.list),
  ds_commit_batch,
  ds_commit_batch_in,
  ds_commit_at,
  ds_commit_with_settings_at,
  ds_commit_batch_at,
  ds_events_drop_redacted_payload,
  ds_events_notify_feed(tableMap.plugins),
  ds_feed_bound_in,
  ds_read_in,
  ds_workspace_here,
  ...searchWords(layout),
  ...duplicateKeys(layout),
  ...dealFigures(layout),
  ...dealContactLinks(layout)
]

/** The stored functions of a storage without plug-ins. */
export const functions: ReadonlyArray<StoredFunction> = functionsOf(builtInTables)
