/** PostgreSQL storage for dealstream, and an embedded PostgreSQL to run it without a server. */
export * as PgStorage from "./PgStorage.js"
export * as EmbeddedPostgres from "./EmbeddedPostgres.js"
export { DatabaseError, targetOf as databaseTarget } from "./errors.js"
export { EmbeddedPostgresError } from "./EmbeddedPostgres.js"
export { type Migrated, migrate } from "./migrate.js"
export type { PluginMigrationApplied } from "./applyPluginMigrations.js"
export { documentTableSql } from "./documentTableSql.js"
export { databaseHosts, databaseUrlProblem, HostsProblem as DatabaseHostsProblem, withHosts as withDatabaseHosts } from "./hosts.js"
