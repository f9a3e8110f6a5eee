import type { Migration } from "./Migration.js"

/**
 * Record types given at run time (core's RecordTypePlugin) bring migrations of their own tables,
 * their ids counted within the plug-in: migrate.ts records each applied one here, under the
 * plug-in's name, apart from ds_migrations, whose ids are the engine's.
 */
export const migration: Migration = {
  id: 20,
  name: "plugin migrations",
  statements: [
    `CREATE TABLE ds_plugin_migrations (
      plugin text NOT NULL,
      id integer NOT NULL,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (plugin, id)
    )`
  ]
}
