import type { StorageService } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type pg from "pg"
import { event, fresh, upsert } from "../../packages/core/src/testing/storageFixtures.js"
import { pauseHereViews } from "../../packages/storage-pg/src/citusViews.js"
import { paramsOf } from "../../packages/storage-pg/src/commit.js"
import { HERE_LOCK_CLASS, HERE_PAUSED_SCHEMA } from "../../packages/storage-pg/src/functions/ds_shards_here.js"
import { VIEWED_WORKSPACE_SETTING } from "../../packages/storage-pg/src/functions/workspaceRows.js"
import { PgStorage } from "../../packages/storage-pg/src/index.js"
import { migrate, schema } from "../../packages/storage-pg/src/migrate.js"
import { makePool } from "../../packages/storage-pg/src/pool.js"
import { citusDatabase } from "../support/citusDatabase.js"
import { connect, nodeUrl, placement, query } from "../support/citusShards.js"

// Issue 31: a commit on a Citus worker reaches its workspace's shards through the `here_` views of
// its shard group (packages/storage-pg/src/functions/ds_shards_here.ts), picked by search_path, so
// that PL/pgSQL keeps the statements' plans. What must hold: every row lands in its workspace's
// shard whichever group the worker's connection served before, and the views never stand in the
// way of a migration (packages/storage-pg/src/citusViews.ts).

/** Rows of `table` on the worker that sit in a shard other than their workspace's. */
const misplaced = (worker: pg.Client, table: string) =>
  Effect.gen(function* () {
    // Citus hides shards from pg_class on a worker unless told otherwise.
    yield* query(worker, "SET citus.override_table_visibility TO off")
    const shards = yield* query<{ readonly name: string; readonly shard: string }>(
      worker,
      `SELECT c.relname AS name, substring(c.relname FROM '_(\\d+)$') AS shard FROM pg_class AS c
       WHERE c.relkind = 'r' AND c.relname ~ ('^' || $1 || '_\\d+$')`,
      [table]
    )
    let count = 0
    for (const { name, shard } of shards) {
      const [row] = yield* query<{ readonly n: string }>(
        worker,
        `SELECT count(*) AS n FROM ${name} WHERE get_shard_id_for_distribution_column($1, workspace_id) <> $2::bigint`,
        [table, shard]
      )
      count += Number(row!.n)
    }
    return { shards: shards.length, count }
  })

/** Workspaces until two have their shards on one worker in different shard groups: that worker's port and the two. */
const twoGroupsOnOneWorker = (coordinator: pg.Client) =>
  Effect.gen(function* () {
    const seen = new Map<number, { readonly shard: string; readonly ws: string }>()
    for (;;) {
      const ws = fresh("ws")
      const { shard, source: port } = yield* placement(coordinator, ws)
      const first = seen.get(port)
      if (first !== undefined && first.shard !== shard) return { port, workspaces: [first.ws, ws] as const }
      if (first === undefined) seen.set(port, { shard, ws })
    }
  })

const contactCommit = (ws: string, n: number) => {
  const id = fresh("con")
  return {
    streams: [{ streamId: id, expectedVersion: 0, events: [event(ws, "contact.created", { n }, n)] }],
    documents: [upsert(ws, id, { n, email: `c${n}@example.com` })]
  }
}

/** The workspace's contacts, read by a router query: in its own shard only. */
const counted = (coordinator: pg.Client, ws: string) =>
  Effect.map(query<{ readonly n: string }>(coordinator, "SELECT count(*) AS n FROM ds_contacts WHERE workspace_id = $1", [ws]), ([row]) =>
    Number(row!.n)
  )

/** A fresh Citus database, a storage on it, a client on its coordinator, and a pool for migrate. */
const setUp = Effect.gen(function* () {
  const url = yield* citusDatabase
  const storage: StorageService = yield* PgStorage.make(url)
  const coordinator = yield* connect(url)
  const pool = yield* makePool({ url: Redacted.make(url), maxConnections: 2, statementTimeout: Duration.seconds(60) }).pipe(
    Effect.provide(Reactivity.layer)
  )
  return { url, storage, coordinator, sql: pool.unbounded }
})

/** The URL of the worker holding the workspace, in the database of `url`. */
const workerUrlOf = (coordinator: pg.Client, url: string, ws: string) =>
  Effect.map(placement(coordinator, ws), ({ source }) => nodeUrl(source, new URL(url).pathname.slice(1)))

/** `statement` started on `session`, once it waits for an advisory lock (seen from `looking`). */
const startedUntilWaiting = (session: pg.Client, looking: pg.Client, statement: string, params: ReadonlyArray<unknown>) =>
  Effect.gen(function* () {
    const [row] = yield* query<{ readonly pid: number }>(session, "SELECT pg_backend_pid() AS pid")
    const started = yield* Effect.forkChild(query(session, statement, params))
    for (;;) {
      const [lock] = yield* query<{ readonly waits: boolean }>(
        looking,
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND NOT granted) AS waits",
        [row!.pid]
      )
      if (lock!.waits) return started
      yield* Effect.sleep("10 millis")
    }
  })

describe("the here_ views of a Citus worker", () => {
  it.live(
    "put every row in its workspace's shard when one connection serves group after group",
    () =>
      Effect.gen(function* () {
        const { url, coordinator, storage } = yield* setUp
        const { port, workspaces } = yield* twoGroupsOnOneWorker(coordinator)
        // The workspaces' first commits through the storage: each gets its settings and feed offset.
        for (const ws of workspaces) yield* storage.commit(contactCommit(ws, 0))
        const workerUrl = nodeUrl(port, new URL(url).pathname.slice(1))
        const worker = yield* connect(workerUrl)
        // One connection to the worker, the workspaces' commits alternating on it: every statement's
        // kept plan is made again for the other group's views, or the rows go to the wrong shard.
        for (let n = 1; n <= 6; n++) {
          const ws = workspaces[n % 2]!
          const items = JSON.stringify([paramsOf(contactCommit(ws, n), new Date(n * 1000).toISOString())])
          const [row] = yield* query<{ readonly outcome: unknown }>(worker, "SELECT ds_commit_batch_in($1, $2::jsonb) AS outcome", [
            ws,
            items
          ])
          expect(JSON.stringify(row!.outcome)).not.toMatch(/conflict|refused/)
        }
        const [viewing] = yield* query<{ readonly n: string }>(
          worker,
          "SELECT count(*) AS n FROM pg_namespace WHERE nspname LIKE 'ds\\_here\\_%' AND nspname <> $1",
          [HERE_PAUSED_SCHEMA]
        )
        expect(Number(viewing!.n)).toBeGreaterThanOrEqual(2)
        for (const table of ["ds_contacts", "ds_events", "ds_streams", "ds_contacts_words"]) {
          const found = yield* misplaced(worker, table)
          expect(found.shards).toBeGreaterThanOrEqual(2)
          expect(found.count).toBe(0)
        }
        expect(yield* counted(coordinator, workspaces[0])).toBe(4)
        expect(yield* counted(coordinator, workspaces[1])).toBe(4)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "a commit that waited while another made its group's views uses them, and drops nothing",
    () =>
      Effect.gen(function* () {
        const { url, coordinator } = yield* setUp
        const ws = fresh("ws")
        const workerUrl = yield* workerUrlOf(coordinator, url, ws)
        const [first, second, looking] = [yield* connect(workerUrl), yield* connect(workerUrl), yield* connect(workerUrl)]
        yield* query(first, "BEGIN")
        yield* query(first, "SELECT ds_shards_here($1)", [ws])
        yield* query(second, "BEGIN")
        // The second looks for the views before the first commits them, then waits for its lock.
        const waiting = yield* startedUntilWaiting(second, looking, "SELECT ds_shards_here($1)", [ws])
        yield* query(first, "COMMIT")
        const viewOf = query<{ readonly oid: string | null }>(
          looking,
          `SELECT c.oid::text AS oid FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
           WHERE n.nspname LIKE 'ds\\_here\\_%' AND c.relname = 'here_ds_events'`
        )
        const made = yield* viewOf
        expect(made).toHaveLength(1)
        yield* Fiber.join(waiting)
        yield* query(second, "COMMIT")
        expect(yield* viewOf).toEqual(made)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "a commit that waited while migrate paused the views leaves them alone",
    () =>
      Effect.gen(function* () {
        const { url, coordinator, storage } = yield* setUp
        const ws = fresh("ws")
        yield* storage.commit(contactCommit(ws, 1))
        const workerUrl = yield* workerUrlOf(coordinator, url, ws)
        const [pausing, committing, looking] = [yield* connect(workerUrl), yield* connect(workerUrl), yield* connect(workerUrl)]
        // The committing session has used the views before: its caches know them.
        yield* query(committing, "BEGIN")
        yield* query(committing, "SELECT ds_shards_here($1)", [ws])
        yield* query(committing, "COMMIT")
        // A pause begun (citusViews.ts): its lock taken, the commit waiting for it, then the views gone.
        yield* query(pausing, "BEGIN")
        yield* query(pausing, `SELECT pg_advisory_xact_lock(${HERE_LOCK_CLASS}, 0)`)
        yield* query(committing, "BEGIN")
        const waiting = yield* startedUntilWaiting(committing, looking, "SELECT ds_shards_here($1)", [ws])
        yield* query(pausing, "SET LOCAL citus.enable_ddl_propagation TO off")
        yield* query(pausing, `CREATE SCHEMA ${HERE_PAUSED_SCHEMA}`)
        for (const { nspname } of yield* query<{ readonly nspname: string }>(
          pausing,
          `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'ds\\_here\\_%' AND nspname <> '${HERE_PAUSED_SCHEMA}'`
        )) {
          yield* query(pausing, `DROP SCHEMA ${nspname} CASCADE`)
        }
        yield* query(pausing, "COMMIT")
        yield* Fiber.join(waiting)
        const [viewed] = yield* query<{ readonly ws: string | null }>(
          committing,
          `SELECT current_setting('${VIEWED_WORKSPACE_SETTING}', true) AS ws`
        )
        expect(viewed!.ws ?? "").toBe("")
        yield* query(committing, "COMMIT")
        yield* query(looking, `SET citus.enable_ddl_propagation TO off`)
        yield* query(looking, `DROP SCHEMA ${HERE_PAUSED_SCHEMA}`)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "the check finds a row put in another group's shard (planted)",
    () =>
      Effect.gen(function* () {
        const { url, coordinator } = yield* setUp
        const { port, workspaces } = yield* twoGroupsOnOneWorker(coordinator)
        const worker = yield* connect(nodeUrl(port, new URL(url).pathname.slice(1)))
        const [shard] = yield* query<{ readonly id: string }>(
          worker,
          "SELECT get_shard_id_for_distribution_column('ds_streams', $1::text)::text AS id",
          [workspaces[0]]
        )
        yield* query(worker, `INSERT INTO ds_streams_${shard!.id} (stream_id, workspace_id, version) VALUES ($1, $2, 1)`, [
          fresh("con"),
          workspaces[1]
        ])
        expect((yield* misplaced(worker, "ds_streams")).count).toBe(1)
        yield* query(worker, `DELETE FROM ds_streams_${shard!.id} WHERE workspace_id = $1`, [workspaces[1]])
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "do not stop a migration dropping a column they show, and commits go on through it",
    () =>
      Effect.gen(function* () {
        const { storage, coordinator, sql } = yield* setUp
        const ws = fresh("ws")
        const scratch = { id: 9_001, name: "a column the views show", statements: ["ALTER TABLE ds_contacts ADD COLUMN scratch text"] }
        yield* migrate(sql, { ...schema, migrations: [...schema.migrations, scratch] })
        yield* storage.commit(contactCommit(ws, 1))
        // What a migration would meet without the pause: the worker's views depend on the column.
        const direct = yield* Effect.exit(query(coordinator, "ALTER TABLE ds_contacts DROP COLUMN scratch"))
        expect(Exit.isFailure(direct)).toBe(true)
        expect(String(Exit.isFailure(direct) ? direct.cause : "")).toMatch(/depend/)
        const drop = { id: 9_002, name: "the column dropped", statements: ["ALTER TABLE ds_contacts DROP COLUMN scratch"] }
        yield* migrate(sql, { ...schema, migrations: [...schema.migrations, scratch, drop] })
        yield* storage.commit(contactCommit(ws, 2))
        expect(yield* counted(coordinator, ws)).toBe(2)
        const paused = yield* query<{ readonly nodeid: number; readonly result: string }>(
          coordinator,
          "SELECT nodeid, result FROM run_command_on_all_nodes($1)",
          [`SELECT to_regnamespace('${HERE_PAUSED_SCHEMA}') IS NOT NULL`]
        )
        expect(paused.map((row) => row.result)).toEqual(paused.map(() => "f"))
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "while paused, commits write the shards without them",
    () =>
      Effect.gen(function* () {
        const { storage, coordinator, sql } = yield* setUp
        const ws = fresh("ws")
        yield* pauseHereViews(sql)
        yield* storage.commit(contactCommit(ws, 1))
        yield* storage.commit(contactCommit(ws, 2))
        expect(yield* counted(coordinator, ws)).toBe(2)
        const views = yield* query<{ readonly result: string }>(coordinator, "SELECT result FROM run_command_on_all_nodes($1)", [
          `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'ds\\_here\\_%' AND nspname <> '${HERE_PAUSED_SCHEMA}'`
        ])
        expect(views.map((row) => row.result)).toEqual(views.map(() => "0"))
        yield* migrate(sql)
        yield* storage.commit(contactCommit(ws, 3))
        expect(yield* counted(coordinator, ws)).toBe(3)
      }).pipe(Effect.scoped),
    120_000
  )
})
