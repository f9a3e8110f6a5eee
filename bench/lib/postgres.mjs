// The one embedded PostgreSQL a bench run starts, with a fresh database per system under test.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EmbeddedPostgres, PgStorage } from "@dealstream/storage-pg"
import { Effect, Exit, Scope } from "effect"
import postgres from "postgres"

/** Runs a scoped Effect to completion as a Promise, closing its scope on `close()`. */
export const openScoped = async (effect) => {
  const scope = Effect.runSync(Scope.make())
  const value = await Effect.runPromise(Scope.provide(effect, scope))
  return { value, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/**
 * Starts PostgreSQL with its normal durability (fsync, synchronous_commit and full_page_writes on:
 * not the tests' ephemeral cluster), in a temporary directory that is removed on stop; or, given
 * `keep`, in that directory, made on first use and left in place (`--keep-data`: a scenario may
 * then reuse what it seeded there, see `seededDatabase`).
 */
export const startPostgres = async ({ log, settings: extra = {}, keep }) => {
  const dir = keep ?? mkdtempSync(join(tmpdir(), "ds-bench-"))
  mkdirSync(dir, { recursive: true })
  // As root the server runs as the postgres user, which must be able to enter the directory.
  chmodSync(dir, 0o755)
  const started = Date.now()
  const { value: running, close } = await openScoped(
    EmbeddedPostgres.start({ dataDir: join(dir, "pg"), database: "postgres", settings: extra })
  )
  const admin = postgres(running.adminUrl, { max: 1, onnotice: () => {} })
  const [{ version }] = await admin`SELECT version()`
  const settings = Object.fromEntries(
    (
      await admin`SELECT name, setting, unit FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_connections', 'wal_level')`
    ).map((row) => [row.name, row.unit === "8kB" ? `${(Number(row.setting) * 8) / 1024} MB` : row.setting])
  )
  log(`embedded PostgreSQL on port ${running.port} (${((Date.now() - started) / 1000).toFixed(1)} s to start)`)

  const urlOf = (database) => running.adminUrl.replace(/\/postgres$/, `/${database}`)
  const createDatabase = async (name) => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.unsafe(`CREATE DATABASE ${name}`)
    return urlOf(name)
  }
  return {
    version: version.split(" on ")[0],
    settings,
    adminUrl: running.adminUrl,
    /**
     * With `shared_preload_libraries=pg_stat_statements` (profile mode): the statements a database
     * ran since the last reset, most time first.
     */
    statements: async (database) => {
      await admin`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`
      return admin`SELECT s.query, s.calls::int AS calls, s.total_exec_time AS total_ms, s.mean_exec_time AS mean_ms
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ${database}
        ORDER BY s.total_exec_time DESC`
    },
    resetStatements: async () => {
      await admin`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`
      await admin`SELECT pg_stat_statements_reset()`
    },
    /**
     * A database seeded once for `fingerprint` (what decides its contents: sizes, the seed's code):
     * with a kept data directory, the one a run before seeded, if its fingerprint is this one; else
     * a new one given `seed(url)`, whose JSON answer is kept with the fingerprint. Its URL, the
     * seed's answer and whether it was reused.
     */
    seededDatabase: async (name, fingerprint, seed) => {
      if (keep !== undefined) {
        const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`
        if (found !== undefined) {
          const db = postgres(urlOf(name), { max: 1, onnotice: () => {} })
          try {
            const [row] = await db`SELECT answer FROM bench_seeded WHERE fingerprint = ${fingerprint}`.catch(() => [])
            if (row !== undefined) {
              log(`  reusing ${name}, seeded by an earlier run (--keep-data)`)
              return { url: urlOf(name), seeded: row.answer, reused: true }
            }
          } finally {
            await db.end()
          }
        }
      }
      const url = await createDatabase(name)
      const seeded = await seed(url)
      const db = postgres(url, { max: 1, onnotice: () => {} })
      await db`CREATE TABLE bench_seeded (fingerprint text PRIMARY KEY, answer jsonb NOT NULL)`
      await db`INSERT INTO bench_seeded ${db({ fingerprint, answer: db.json(seeded) })}`
      await db.end()
      return { url, seeded, reused: false }
    },
    /** A new, empty database; its URL. */
    createDatabase,
    stop: async () => {
      await admin.end()
      await close()
      if (keep === undefined) rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Creates dealstream's schema in a database (the migrations the storage runs at start-up). */
export const migrateDealstream = async (url) => {
  const { close } = await openScoped(PgStorage.make({ url, maxConnections: 1 }))
  await close()
}
