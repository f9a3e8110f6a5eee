import { Context } from "effect"
import type { StandardField } from "../field/table.js"

/**
 * A versioned migration of a plug-in's own tables. Its ids count from 1 within the plug-in and are
 * recorded under the plug-in's name, apart from the engine's own migrations.
 */
export interface PluginMigration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
}

/**
 * A record type an embedder adds: everything the engine, the storages and the HTTP host need to
 * serve it as they serve companies, declared once. Its records have the soft-delete life
 * (record/lifecycle.ts): create, update, delete into the trash, restore within 30 days, purge; its
 * events are `<name>.created` and so on, announced to webhooks and the change feed.
 *
 * The built-in record types (recordTypes.ts) are compiled in; a plug-in is given at run time, in the
 * RecordTypes context, to the engine, the storage and the host alike. Every host sharing a database
 * must be given the same plug-ins, as they run the same migrations.
 */
export interface RecordTypePlugin {
  /**
   * `note`: its document collection, the prefix of its event types, its member in a webhook
   * payload's `data` and its `type` in the trash. Lower-case letters and underscores, not a
   * built-in record type's or collection's name.
   */
  readonly name: string
  /** `notes`: its path, `/v1/notes`, and the plural in messages. */
  readonly plural: string
  /** `Note`: its schemas' names in the OpenAPI document (`Note`, `NotePage`, `NoteInput`). */
  readonly title: string
  /** Its ids are `<prefix>_…`. */
  readonly prefix: string
  /** Its standard fields (field/table.ts's fieldTable), `id`, `created_at` and `updated_at` included. */
  readonly fields: ReadonlyArray<StandardField>
  /**
   * A text field whose value, trimmed and lower-cased, is unique among the workspace's live records
   * of the type, and which a batch upserts on; null for none.
   */
  readonly uniqueField: string | null
  /** PostgreSQL: its document table, and the migrations that make it (migrations' documentTableSql). */
  readonly postgres: {
    readonly table: string
    readonly migrations: ReadonlyArray<PluginMigration>
  }
}

/** The plug-ins this process serves, beside the built-in record types: none unless given. */
export const RecordTypes = Context.Reference<ReadonlyArray<RecordTypePlugin>>("@dealstream/core/RecordTypes", {
  defaultValue: () => []
})
