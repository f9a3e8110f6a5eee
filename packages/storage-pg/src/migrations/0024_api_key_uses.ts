import type { Migration } from "./Migration.js"

/**
 * When each stored API key was last used (core's `api_key_use` collection: engine/records/apiKeys.ts
 * says why that is no event): a document table of the same shape as the others, one row per key in
 * the reserved workspace `$system` under the key's id (`key_…`), overwritten at most about once a
 * minute per key by the hosts that see it used. The commit functions write it from tables.ts's list
 * (functions/documentTableList.ts), like every document table.
 */
export const migration: Migration = {
  id: 24,
  name: "api key uses",
  statements: [
    `CREATE TABLE ds_api_key_uses (
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
    `CREATE INDEX ds_api_key_uses_deleted ON ds_api_key_uses (workspace_id, deleted_at, id) WHERE deleted_at IS NOT NULL`,
    // Shape only: these documents claim no key. commit.ts reads a table back from this index's name.
    `CREATE UNIQUE INDEX ds_api_key_uses_unique_key ON ds_api_key_uses (workspace_id, unique_key) WHERE unique_key IS NOT NULL`
  ]
}
