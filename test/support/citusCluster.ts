import { execFile } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { clusterParent, freePort, postgresIds } from "./pgCluster.js"
import { EMPTY_DATABASE, uniqueName } from "./templateDatabase.js"

// A Citus cluster of the machine's PostgreSQL 15 for the Citus suites (issue 31): a coordinator and
// workers, each a server of its own on a free port, in one directory that goes with it. Citus must
// be installed into /usr/lib/postgresql/15 first (.ci/run runs the install script of the Citus
// build it is given; README "Growing past one database server" says how elsewhere).
//
// Citus keeps its metadata per database, so a database for a test file is made on every node,
// with the extension in each, and the workers registered in the coordinator's copy: 1–3 s, after
// which the file migrates it through the storage as a host would (migrate distributes the tables).

const BIN = "/usr/lib/postgresql/15/bin"

export interface CitusCluster {
  /** The coordinator's `postgres` database URL; a test file makes its own with `createDatabase`. */
  readonly url: string
  readonly ports: ReadonlyArray<number>
  /** A database made on every node and wired as one Citus database; returns the coordinator's URL of it. */
  readonly createDatabase: () => Promise<string>
  readonly dropDatabase: (url: string) => Promise<void>
  readonly stop: () => Promise<void>
}

/** Whether this machine's PostgreSQL 15 has Citus installed. */
export const citusInstalled = (): boolean => existsSync("/usr/share/postgresql/15/extension/citus.control")

const onNode = async (url: string, statements: ReadonlyArray<string>): Promise<void> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (const statement of statements) await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Starts a coordinator and `workers` workers (default 2). A start that fails stops what it started. */
export const startCitusCluster = async (workers = 2): Promise<CitusCluster> => {
  if (!citusInstalled()) throw new Error("Citus is not installed for PostgreSQL 15: run the Citus build's install.sh as root")
  const { uid, gid } = postgresIds()
  const root = mkdtempSync(join(clusterParent(), "dealstream-citus-"))
  chownSync(root, uid, gid)
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, LC_ALL: "C", TZ: "UTC" }
  const asPostgres = (tool: string, args: ReadonlyArray<string>): Promise<string> =>
    new Promise((resolve, reject) =>
      execFile(
        "setpriv",
        ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", join(BIN, tool), ...args],
        { cwd: root, env },
        (error, stdout, stderr) =>
          error === null ? resolve(stdout) : reject(new Error(`${tool} ${args.join(" ")} failed: ${stderr.trim() || error.message}`))
      )
    )
  const started: Array<string> = []
  const stop = async () => {
    for (const dir of started.splice(0)) await asPostgres("pg_ctl", ["-D", dir, "-m", "immediate", "-w", "stop"]).catch(() => undefined)
    rmSync(root, { recursive: true, force: true })
  }
  try {
    const ports: Array<number> = []
    for (let node = 0; node <= workers; node++) {
      const port = await freePort()
      const dir = join(root, `node-${node}`)
      await asPostgres("initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
      const options = [
        `-c port=${port}`,
        "-c listen_addresses=127.0.0.1",
        `-c unix_socket_directories=${root}`,
        "-c shared_preload_libraries=citus",
        "-c max_prepared_transactions=100",
        "-c fsync=off",
        "-c shared_buffers=32MB",
        "-c max_connections=200",
        // Citus's default is 32 shards a table; 4 keep a test database's migrate to seconds and
        // still spread every table over both workers.
        "-c citus.shard_count=4"
      ].join(" ")
      await asPostgres("pg_ctl", ["-D", dir, "-l", join(root, `node-${node}.log`), "-o", options, "-w", "start"])
      started.push(dir)
      ports.push(port)
    }
    const createDatabase = () => citusDatabaseOn(ports)
    const dropDatabase = (url: string) => dropCitusDatabase(ports, url)
    return { url: urlOf(ports[0]!), ports, createDatabase, dropDatabase, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

const urlOf = (port: number, database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`

/** A database on every node of the cluster at `ports` (coordinator first), wired as one Citus database. */
export const citusDatabaseOn = async (ports: ReadonlyArray<number>): Promise<string> => {
  const url = await plainDatabaseOn(ports)
  await makeCitus(ports, url)
  return url
}

/**
 * A database of the same name on every node, without Citus in it yet: on the coordinator it is a
 * plain PostgreSQL database, as a single-server installation's (test/citus/existingInstallation).
 */
export const plainDatabaseOn = async (ports: ReadonlyArray<number>): Promise<string> => {
  const name = uniqueName("ds_citus")
  for (const port of ports) await onNode(urlOf(port), [`CREATE DATABASE ${name} ${EMPTY_DATABASE}`])
  return urlOf(ports[0]!, name)
}

/** Turns the databases named by `url` on every node into one Citus database: the extension, then the workers. */
export const makeCitus = async (ports: ReadonlyArray<number>, url: string): Promise<void> => {
  const [coordinator, ...workers] = ports as [number, ...Array<number>]
  const name = new URL(url).pathname.slice(1)
  // One file at a time: adding a node syncs roles and other objects every database of a server
  // shares, and two databases doing it at once fail on a worker with "tuple concurrently updated".
  const guard = new pg.Client({ connectionString: urlOf(coordinator) })
  await guard.connect()
  try {
    await guard.query(`SELECT pg_advisory_lock(${SETUP_LOCK})`)
    for (const port of ports) await onNode(urlOf(port, name), ["CREATE EXTENSION citus"])
    await onNode(urlOf(coordinator, name), [
      `SELECT citus_set_coordinator_host('127.0.0.1', ${coordinator})`,
      ...workers.map((port) => `SELECT citus_add_node('127.0.0.1', ${port})`)
    ])
  } finally {
    await guard.end()
  }
}

/**
 * Adds the server at `port` (a Citus node of no cluster yet: `startCitusCluster(0)`'s) as a worker of
 * the Citus database at `url` only: the same database made there with the extension, then added.
 * Citus keeps its nodes per database, so the run's other databases never see it.
 */
export const addWorker = async (url: string, port: number): Promise<void> => {
  const name = new URL(url).pathname.slice(1)
  const coordinator = Number(new URL(url).port)
  await onNode(urlOf(port), [`CREATE DATABASE ${name} ${EMPTY_DATABASE}`])
  await onNode(urlOf(port, name), ["CREATE EXTENSION citus"])
  const guard = new pg.Client({ connectionString: urlOf(coordinator) })
  await guard.connect()
  try {
    await guard.query(`SELECT pg_advisory_lock(${SETUP_LOCK})`)
    await onNode(url, [`SELECT citus_add_node('127.0.0.1', ${port})`])
  } finally {
    await guard.end()
  }
}

// Any constant; it names the lock that serializes the suites' database setups.
const SETUP_LOCK = 3_141_592_653

/**
 * Drops a test's database on every node. DROP … WITH (FORCE) ends the sessions still in it (and is
 * asked again when one outlasts its wait: "being accessed by other users", which failed CI once),
 * but refuses a database that holds prepared transactions: a two-phase commit the coordinator prepared
 * on a worker and had not finished when the test ended (Citus recovers those later, by itself). The
 * database is going, so they are rolled back first, on each node, in the database itself.
 */
export const dropCitusDatabase = async (ports: ReadonlyArray<number>, url: string): Promise<void> => {
  const name = new URL(url).pathname.slice(1)
  for (const port of ports) {
    const client = new pg.Client({ connectionString: urlOf(port) })
    await client.connect()
    let prepared: ReadonlyArray<string>
    try {
      prepared = (await client.query<{ gid: string }>("SELECT gid FROM pg_prepared_xacts WHERE database = $1", [name])).rows.map(
        (row) => row.gid
      )
    } finally {
      await client.end()
    }
    if (prepared.length > 0) {
      const inside = new pg.Client({ connectionString: urlOf(port, name) })
      await inside.connect()
      try {
        // One finished meanwhile by Citus's own recovery is gone: not an error here.
        for (const gid of prepared) await inside.query(`ROLLBACK PREPARED '${gid.replace(/'/g, "''")}'`).catch(() => undefined)
      } finally {
        await inside.end()
      }
    }
    // New connections are refused first: a host still running as its file ends (one stopped after
    // the database, or a reader polling its feed) would reconnect to a worker as fast as FORCE ends
    // its sessions; since hosts send commits and feed reads to the workers themselves, one did.
    // Not propagated by Citus: each node's copy is closed here, in turn.
    await onNode(urlOf(port), [
      "SET citus.enable_ddl_propagation = off",
      `DO $close$ BEGIN
         IF EXISTS (SELECT 1 FROM pg_database WHERE datname = '${name}') THEN
           EXECUTE 'ALTER DATABASE ${name} ALLOW_CONNECTIONS false';
         END IF;
       END $close$`
    ])
    // FORCE ends the sessions in it and waits 5 s for them to go; under load one may outlast that,
    // or a connection the cluster opens itself (Citus's maintenance) arrive meanwhile: asked again.
    for (let attempt = 1; ; attempt++) {
      try {
        await onNode(urlOf(port), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
        break
      } catch (error) {
        if ((error as { code?: string }).code !== "55006" || attempt >= 5) throw error
      }
    }
  }
}
