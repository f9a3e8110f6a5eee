// A PostgreSQL 15 primary and a streaming standby of the machine's own binaries, for the scaleout
// scenario (failover gap, replica reads): servers that can be SIGKILLed and promoted. How they run
// (the postgres user, a PID namespace per server, free ports, /dev/shm, cleanup at exit):
// lib/pgServers.mjs.
//
// pg_ctl reads the postmaster's pid from postmaster.pid, which holds the namespace's pid (1): it
// runs inside the namespace (nsenter), where that pid is the postmaster.
import { join } from "node:path"
import { asPostgres, makeTemplate, PG15_BIN, run, serversUnavailable, startServerGroup, waitUntil } from "./pgServers.mjs"

export { makeTemplate, PG15_BIN, waitUntil }

/** Why a pair cannot be started on this machine, or null when it can. */
export const pairUnavailable = () => serversUnavailable(["postgres", "initdb", "pg_basebackup", "pg_ctl"])

/**
 * Starts a primary (a copy of `template`) and a standby made from it by pg_basebackup -R,
 * streaming, and synchronous (synchronous_standby_names) if asked. A start that fails part way
 * stops what it started. Servers are named node1 and node2 (their cluster_name, and the standby's
 * application_name); roles change (promote), names do not.
 */
export const startPgPair = async ({ template, synchronous = false }) => {
  const group = startServerGroup("ds-bench-pair-")
  const { root, env, query } = group

  /** Waits until `standby` streams from `primary` (both ends say so), synchronously if asked. */
  const streaming = async (primary, standby, sync) => {
    await waitUntil(`${primary.name} to stream to ${standby.name}${sync ? " synchronously" : ""}`, async () => {
      const [sender] = await query(primary, `SELECT state, sync_state FROM pg_stat_replication WHERE application_name = '${standby.name}'`)
      return sender?.state === "streaming" && (!sync || sender.sync_state === "sync") ? true : undefined
    })
  }

  /** `pg_ctl promote` without waiting (-W), run in the server's PID namespace; the caller polls for the end of recovery. */
  const promote = (server) =>
    run(
      "nsenter",
      [`--target=${server.postmaster}`, "--pid", "--", ...asPostgres, join(PG15_BIN, "pg_ctl"), "promote", "-W", "-D", server.dataDir],
      { cwd: root, env }
    )

  /** Waits until `standby` has replayed everything `primary` has written so far. */
  const caughtUp = async (standby, primary) => {
    const [{ lsn }] = await query(primary, "SELECT pg_current_wal_lsn()::text AS lsn")
    await waitUntil(`${standby.name} to replay up to ${lsn}`, async () => {
      const [row] = await query(standby, `SELECT coalesce(pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn, false) AS done`)
      return row.done ? true : undefined
    })
  }

  try {
    await group.copyTemplate(template, "node1")
    const primary = await group.launchOnFreePort("node1")
    await run(
      asPostgres[0],
      [
        ...asPostgres.slice(1),
        join(PG15_BIN, "pg_basebackup"),
        "-D",
        join(root, "node2"),
        "-d",
        `host=127.0.0.1 port=${primary.port} user=postgres application_name=node2`,
        "-R",
        "-X",
        "stream",
        "-c",
        "fast",
        "--no-sync"
      ],
      { cwd: root, env }
    )
    const standby = await group.launchOnFreePort("node2")
    await streaming(primary, standby, false)
    if (synchronous) {
      await query(primary, `ALTER SYSTEM SET synchronous_standby_names = '"node2"'`)
      await query(primary, "SELECT pg_reload_conf()")
      await streaming(primary, standby, true)
    }
    return { primary, standby, connect: group.connect, query, kill: group.kill, promote, caughtUp, logOf: group.logOf, stop: group.stop }
  } catch (error) {
    await group.stop()
    throw error
  }
}
