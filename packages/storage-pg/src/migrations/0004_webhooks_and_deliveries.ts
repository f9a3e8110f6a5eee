import type { Migration } from "./Migration.js"

/**
 * Webhooks and deliveries, document tables of the same shape as 0002's (their columns and the
 * `_deleted` and `_unique_key` indexes, which stay empty here but keep every document table alike
 * for the code that writes them). Expressions are frozen copies of fieldSql.ts as of this step.
 *
 * A delivery is also a work item: `lease_owner` and `lease_until` say which worker holds it and
 * until when. `lease_until` is canonical ISO text compared as text, like `deleted_at`, so a claim
 * compares instants exactly as the memory adapter does. Only ds_commit and the claim write them.
 */

const isString = (key: string) => `jsonb_typeof(data -> '${key}') = 'string'`
const text = (key: string) => `((CASE WHEN ${isString(key)} THEN data ->> '${key}' END) COLLATE "C")`
const timestamp = (key: string) =>
  `((CASE WHEN ${isString(key)} AND (data ->> '${key}') COLLATE "C" ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$' THEN data ->> '${key}' END) COLLATE "C")`

const table = (name: string, extraColumns = "") => [
  `CREATE TABLE ${name} (
    workspace_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    deleted_at text COLLATE "C",
    data jsonb NOT NULL,
    unique_key text COLLATE "C",
    search_words text[] COLLATE "C" NOT NULL DEFAULT '{}',
    folded jsonb NOT NULL DEFAULT '{}',${extraColumns}
    PRIMARY KEY (workspace_id, id)
  )`,
  `CREATE INDEX ${name}_deleted ON ${name} (workspace_id, deleted_at, id) WHERE deleted_at IS NOT NULL`,
  `CREATE UNIQUE INDEX ${name}_unique_key ON ${name} (workspace_id, unique_key) WHERE unique_key IS NOT NULL`
]

const live = (table: string, name: string, keys: ReadonlyArray<string>) =>
  `CREATE INDEX ${table}_${name} ON ${table} (workspace_id, ${keys.join(", ")}, id) WHERE deleted_at IS NULL`

export const migration: Migration = {
  id: 4,
  name: "webhooks and deliveries",
  statements: [
    ...table("ds_webhooks"),
    ...table(
      "ds_deliveries",
      `
    lease_owner text COLLATE "C",
    lease_until text COLLATE "C",`
    ),
    live("ds_webhooks", "created_at", [timestamp("created_at")]),
    // GET /v1/webhooks/:id/deliveries: one webhook's deliveries newest first (a backward scan),
    // a status filter checked on the way, which stops after a page of matches.
    live("ds_deliveries", "webhook_created_at", [text("webhook_id"), timestamp("created_at")]),
    // The work queue (claimDeliveries.ts, nextDue.ts, releaseLeases.ts) spells these expressions
    // identically. The one index not led by workspace_id: a worker claims across all workspaces,
    // earliest due first, so the order it needs is global. Partial on pending, it holds only the
    // queue (pending and scheduled retries), not the history of sent deliveries, and stays small.
    `CREATE INDEX ds_deliveries_due ON ds_deliveries (((data ->> 'next_attempt_at') COLLATE "C")) WHERE (data ->> 'status') = 'pending'`
  ]
}
