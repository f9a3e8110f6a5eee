import type { BuiltInCollection } from "@dealstream/core"

/** Every table name of the schema, in one place. */
export const tables = {
  migrations: "ds_migrations",
  functions: "ds_functions",
  events: "ds_events",
  streams: "ds_streams",
  settingsVersions: "ds_settings_versions",
  pluginMigrations: "ds_plugin_migrations",
  /** The standings' totals and the deltas not yet in them (migration 0022). */
  figureTotals: "ds_figure_totals",
  figureDeltas: "ds_figure_deltas",
  /** Each live deal's contact_ids, a row per contact, kept by triggers on ds_deals (migration 0026). */
  dealContacts: "ds_deal_contacts",
  /** Per workspace on Citus, what lifts its new worker's transaction ids into its feed order (migration 0029). */
  feedOffsets: "ds_feed_offsets",
  /** Per workspace and consumer name, its checkpoint and who holds its lease (migration 0030). */
  consumers: "ds_consumers"
} as const

/**
 * One document table per collection: each has its own indexes and its own planner statistics.
 * The built-in collections' here; a plug-in names its own (documentTableMap.ts joins them).
 */
export const documentTables: { readonly [C in BuiltInCollection]: string } = {
  contact: "ds_contacts",
  deal: "ds_deals",
  timeline_entry: "ds_timeline_entries",
  pipeline: "ds_pipelines",
  custom_field: "ds_custom_fields",
  idempotency: "ds_idempotency_keys",
  workspace: "ds_workspaces",
  webhook: "ds_webhooks",
  delivery: "ds_deliveries",
  api_key: "ds_api_keys",
  api_key_use: "ds_api_key_uses",
  company: "ds_companies",
  activity: "ds_activities",
  deal_standing: "ds_deal_standings",
  stage_change: "ds_stage_changes"
}

/**
 * The words tables of the searched collections (migration 0011): one row per (workspace, word, id),
 * kept in step with the document table's `search_words` by triggers, words cut to this length. A
 * plug-in has none: its searches read `search_words` alone (compileExpr.ts's Search).
 */
export const searchWordTables: { readonly [C in BuiltInCollection]?: string } = {
  contact: "ds_contacts_words",
  deal: "ds_deals_words",
  company: "ds_companies_words"
}
export const searchWordLength = 200
