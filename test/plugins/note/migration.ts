import type { PluginMigration } from "@dealstream/core"

export const noteMigrations: ReadonlyArray<PluginMigration> = []
