import type { PluginMigration } from "@dealstream/core"
import { documentTableSql } from "@dealstream/storage-pg"

/** The note plug-in's PostgreSQL table: a standard document table, as the built-in record types have. */
export const noteMigrations: ReadonlyArray<PluginMigration> = [
  { id: 1, name: "notes table", statements: documentTableSql("ds_test_notes") }
]
