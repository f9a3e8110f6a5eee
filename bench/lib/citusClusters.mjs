// Citus clusters of the machine's PostgreSQL 15 for the citus scenario (issue 31): a coordinator
// and workers, each a server of lib/pgServers.mjs (the postgres user, a PID namespace of its own, a
// free port, /dev/shm), as test/support/citusCluster.ts starts them for the Citus suites. Citus
// 13.2.2 must be installed into /usr/lib/postgresql/15 (/work/shared/citus/install.sh, or .ci/run).
import { existsSync } from "node:fs"
import { serversUnavailable } from "./pgServers.mjs"

export const CITUS_CONTROL = "/usr/share/postgresql/15/extension/citus.control"

/** Why a Citus cluster cannot be started on this machine, or null when it can. */
export const citusUnavailable = () =>
  serversUnavailable() ??
  (existsSync(CITUS_CONTROL)
    ? null
    : `Citus is not installed into PostgreSQL 15 (${CITUS_CONTROL} missing; run the Citus build's install.sh as root)`)

/**
 * Starts `name`-coordinator and `workers` workers in `group` (lib/pgServers.mjs), each a copy of
 * `template` with Citus preloaded, and wires `database` on every node into one Citus database:
 * the database and `CREATE EXTENSION citus` on each node, then on the coordinator
 * `citus_set_coordinator_host` and one `citus_add_node` per worker (docs/citus.md, Setup). `settings`:
 * more `-c` settings for every node (shared_preload_libraries must keep citus first). Returns
 * the servers and the coordinator's URL of the database; the tables are distributed by the
 * storage's migrate when an engine first connects.
 */
export const startCitusCluster = async ({ group, template, name, workers, database, shardCount, settings: extra = {} }) => {
  const settings = {
    shared_preload_libraries: "citus",
    max_prepared_transactions: "100",
    "citus.shard_count": String(shardCount),
    ...extra
  }
  const names = [`${name}-coordinator`, ...Array.from({ length: workers }, (_, i) => `${name}-worker${i + 1}`)]
  for (const node of names) await group.copyTemplate(template, node)
  const [coordinator, ...workerServers] = await Promise.all(names.map((node) => group.launchOnFreePort(node, settings)))
  for (const server of [coordinator, ...workerServers]) {
    await group.query(server, `CREATE DATABASE ${database}`)
    await group.query(server, "CREATE EXTENSION citus", database)
  }
  await group.query(coordinator, `SELECT citus_set_coordinator_host('127.0.0.1', ${coordinator.port})`, database)
  for (const worker of workerServers) await group.query(coordinator, `SELECT citus_add_node('127.0.0.1', ${worker.port})`, database)
  return {
    coordinator,
    workers: workerServers,
    url: `postgres://postgres@127.0.0.1:${coordinator.port}/${database}`,
    /** How many of `workspaces` each worker holds (by the log's shards), by the worker's port. */
    workspacesPerWorker: async (workspaces) => {
      const sql = group.connect(coordinator, database)
      try {
        const rows = await sql`SELECT n.nodeport AS port, count(*)::int AS workspaces
          FROM unnest(${workspaces}::text[]) AS w(id)
          JOIN pg_dist_placement AS p ON p.shardid = get_shard_id_for_distribution_column('ds_events', w.id)
          JOIN pg_dist_node AS n ON n.groupid = p.groupid
          GROUP BY 1 ORDER BY 1`
        return new Map(rows.map((row) => [row.port, row.workspaces]))
      } finally {
        await sql.end({ timeout: 1 })
      }
    }
  }
}
