import { type ChildProcess, execFile, spawn } from "node:child_process"
import { chownSync, closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Cause, Effect, Exit, Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { isSqlError } from "effect/sql/SqlError"
import { sqlStateOf } from "../../packages/storage-pg/src/internal/sqlState.js"
import { attachedTo, type LockFile, parentOf, readLockFile } from "../../packages/storage-pg/src/postmasterLock.js"
import { EMPTY_DATABASE, uniqueName, withDatabase } from "./templateDatabase.js"

// A primary and a streaming standby of the machine's PostgreSQL 15, for the tests of issue 30
// (replicas, failover, a stale primary that comes back). The run's own server (pg.ts) is one
// server shared by every file and cannot be killed, promoted or paused; these two belong to one
// test file, on ports and in a directory of their own, so such faults hurt no one else.
//
// Use: one cluster per file, shared by its tests, since a start costs about 2 s (initdb is most of
// it): `cluster = await startPgCluster()` in beforeAll (or the test) and `cluster.stop()` in
// afterAll, which also runs when a test fails; or `yield* pgCluster()` inside a Scope. Roles move
// (a promoted standby is the primary from then on), so a test that fails over says which server
// it writes to, by name, and a file orders its tests accordingly.
//
// Why it is built the way it is:
// - Real binaries, one initdb per cluster: the standby is a pg_basebackup -R of the primary, as an
//   operator makes one, so what replication does (and fails to do) is PostgreSQL's own.
// - The servers run as the `postgres` user (PostgreSQL refuses root) under pgReaper.py, a child
//   subreaper: this machine's PID 1 never reaps, pid_max is 32768, and a postmaster started by
//   pg_ctl, or a SIGKILLed postmaster's backends, would stay zombies for good. Closing the reaper's
//   stdin is its leash: if the test process dies, the servers stop and the directory goes too.
// - fsync is off, and the directory is in /dev/shm (memory) where it can be: the faults here are
//   process deaths, after which the kernel still holds every write; only a crash of the machine
//   could lose data, and no test makes one. synchronous_commit stays on, or no commit would wait
//   for a synchronous standby.
// - A stale primary comes back as a standby through a fresh pg_basebackup of the new primary, not
//   pg_rewind: rewind needs wal_log_hints or data checksums (more WAL on every write of every test)
//   and a crash recovery of the old primary first, while copying a test-sized cluster takes under
//   a second here and cannot fail on a timeline that diverged. Either way the old primary's
//   unreplicated commits are gone, as they are after a real failover.
// - Every wait polls for the event it means (a status line, a query's answer) up to a deadline.

const BIN = "/usr/lib/postgresql/15/bin"
const REAPER = fileURLToPath(new URL("./pgReaper.py", import.meta.url))
const DEADLINE_MS = 30_000
const START_ATTEMPTS = 3

/** Both servers' settings. Ports and names are given on each start's command line. */
const SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: "'127.0.0.1'",
  unix_socket_directories: "''",
  shared_buffers: "'16MB'",
  max_connections: "100",
  fsync: "off",
  wal_level: "replica",
  max_wal_senders: "8",
  max_replication_slots: "8",
  // A standby that was down for a while can still catch up from the primary's WAL; the WAL is
  // capped too, since in /dev/shm it is memory.
  wal_keep_size: "'64MB'",
  min_wal_size: "'32MB'",
  max_wal_size: "'256MB'",
  hot_standby: "on",
  // The primary's pg_stat_replication follows the standby within a second (the default is 10 s).
  wal_receiver_status_interval: "'1s'",
  // A standby whose primary went away tries it again after 200 ms, not 5 s: a test that restarts
  // the primary waits for the standby to be back for no longer than the restart takes.
  wal_retrieve_retry_interval: "'200ms'",
  // In the data directory, and gone with it, rather than loose in /dev/shm, where a SIGKILLed
  // server would leave its segments for good.
  dynamic_shared_memory_type: "mmap",
  jit: "off"
}

export interface PgServer {
  /** Its cluster_name, and its application_name when it streams from another server. */
  readonly name: string
  readonly port: number
  readonly dataDir: string
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication, 127.0.0.1 only). */
  readonly url: string
  readonly urlFor: (database: string) => string
}

export type PgSignal =
  /** A crash: the postmaster and every backend at once, as when the machine dies. */
  | "SIGKILL"
  /** PostgreSQL's smart, fast and immediate shutdowns. */
  | "SIGTERM"
  | "SIGINT"
  | "SIGQUIT"

export interface PgClusterOptions {
  /** The primary waits for the standby at each commit (synchronous_standby_names). Default false. */
  readonly synchronous?: boolean
  /** More settings for both servers (name to value, quoted as postgresql.conf wants). */
  readonly settings?: Readonly<Record<string, string>>
}

/** A statement the server refused, or a connection that failed (sqlState null). */
export class PgQueryError extends Error {
  constructor(
    message: string,
    readonly sqlState: string | null
  ) {
    super(message)
  }
}

export interface PgCluster {
  /** The server initdb made: primary at start. Roles change (promote, restartAsStandbyOf); names do not. */
  readonly primary: PgServer
  /** Made from the primary with pg_basebackup -R, streaming (and synchronous if asked) at start. */
  readonly standby: PgServer
  readonly servers: ReadonlyArray<PgServer>
  /** Whether a primary gets its standby as synchronous (at start and in restartAsStandbyOf). */
  readonly synchronous: boolean
  /** One statement on a connection of its own, closed before this returns. */
  readonly query: <A extends object = Record<string, unknown>>(
    server: PgServer,
    statement: string,
    params?: ReadonlyArray<unknown>,
    database?: string
  ) => Promise<ReadonlyArray<A>>
  /** A database (UTF8, C collation) made on `on`, a primary; standbys get it by replay. Returns its name. */
  readonly createDatabase: (on: PgServer, name?: string) => Promise<string>
  readonly inRecovery: (server: PgServer) => Promise<boolean>
  /** pg_current_wal_lsn() of a primary, as text (`0/3000148`). */
  readonly currentLsn: (primary: PgServer) => Promise<string>
  /** pg_last_wal_replay_lsn() of a standby, as text; null before it replayed anything. */
  readonly replayLsn: (standby: PgServer) => Promise<string | null>
  /** Waits until the standby has replayed `lsn` (default: the primary's position now). */
  readonly caughtUp: (standby: PgServer, primary: PgServer, lsn?: string) => Promise<void>
  /** Signals the postmaster (SIGKILL: and all of its processes) and waits until every one is gone. */
  readonly kill: (server: PgServer, signal?: PgSignal) => Promise<void>
  /** Starts a stopped or killed server again, on its directory and port (a crash recovery, say). */
  readonly restart: (server: PgServer) => Promise<void>
  /** pg_ctl promote, then waits until pg_is_in_recovery() is false. The new primary is asynchronous. */
  readonly promote: (standby: PgServer) => Promise<void>
  /** pg_wal_replay_pause(), then waits until replay has paused. WAL still arrives; it is not applied. */
  readonly pauseReplay: (standby: PgServer) => Promise<void>
  readonly resumeReplay: (standby: PgServer) => Promise<void>
  /**
   * `server` again, as a streaming standby of `primary` (synchronous if the cluster is): stopped
   * if it still runs, its directory replaced by a pg_basebackup of `primary`, on its own port.
   */
  readonly restartAsStandbyOf: (server: PgServer, primary: PgServer) => Promise<void>
  /** Names `standby` in the primary's synchronous_standby_names, or none (null), and waits for it. */
  readonly setSynchronousStandby: (primary: PgServer, standby: PgServer | null) => Promise<void>
  /** The server's log so far, for a failing assertion's message. */
  readonly logOf: (server: PgServer) => string
  /** Stops every server and removes the directory. Safe to call twice. */
  readonly stop: () => Promise<void>
}

/** Polls `check` until it answers something other than undefined; past the deadline, fails saying what it waited for. */
export const waitFor = async <A>(what: string, check: () => Promise<A | undefined>, deadlineMs = DEADLINE_MS): Promise<A> => {
  const deadline = Date.now() + deadlineMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch (error) {
      if (error instanceof Fatal) throw error
      last = error
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}${last === undefined ? "" : `: ${String(last)}`}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** A failure that waiting longer cannot cure (a server that exited while it was awaited). */
class Fatal extends Error {}

interface Running {
  readonly reaper: ChildProcess
  readonly postmaster: number
  readonly exited: Promise<number | null>
}

export const postgresIds = (): { readonly uid: number; readonly gid: number } => {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"))
  if (line === undefined) throw new Error("no `postgres` user on this machine: Debian's postgresql package makes it")
  const [, , uid, gid] = line.split(":")
  return { uid: Number(uid), gid: Number(gid) }
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const tail = (text: string, lines = 15) => text.trimEnd().split("\n").slice(-lines).join("\n")

const TMPFS_MAGIC = 0x01021994

/**
 * /dev/shm when it is a tmpfs: on a machine busy with other tests' disk writes a pg_basebackup
 * there took 0.15 s against 1 to 1.7 s on disk, and initdb half as long. Nothing here must outlive
 * the test, and a dead test process's reaper removes the directory.
 */
export const clusterParent = (): string => {
  try {
    if (statfsSync("/dev/shm").type === TMPFS_MAGIC) return "/dev/shm"
  } catch {
    // No /dev/shm: the temporary directory will do.
  }
  return tmpdir()
}

/** The processes whose parent is `pid`. */
const childrenOf = (pid: number): ReadonlyArray<number> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((candidate) => parentOf(candidate) === pid)

/**
 * Starts a primary and a streaming standby; see PgCluster. Call `stop()` when done (afterAll), or
 * use `pgCluster` in a Scope. A start that fails part way stops what it had started.
 */
export const startPgCluster = async (options: PgClusterOptions = {}): Promise<PgCluster> => {
  const { uid, gid } = postgresIds()
  const root = mkdtempSync(join(clusterParent(), "dealstream-pgcluster-"))
  chownSync(root, uid, gid)
  // A clean environment: no PG* variables of the caller's reach the tools.
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, LC_ALL: "C", TZ: "UTC" }
  const synchronous = options.synchronous === true
  const running = new Map<string, Running>()
  const servers: Array<PgServer> = []
  let stopped = false

  const logPath = (name: string) => join(root, `${name}.log`)
  const logOf = (server: PgServer) => {
    try {
      return readFileSync(logPath(server.name), "utf8")
    } catch {
      return ""
    }
  }

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

  const serverAt = (name: string, port: number): PgServer => {
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`
    return { name, port, dataDir: join(root, name), url, urlFor: (database) => withDatabase(url, database) }
  }

  /** The postmaster under its reaper, waited for until it accepts connections (read-only ones on a standby). */
  const launch = async (name: string, port: number): Promise<Running> => {
    const dataDir = join(root, name)
    const log = openSync(logPath(name), "a")
    const reaper = spawn(
      "python3",
      [REAPER, root, join(BIN, "postgres"), "-D", dataDir, "-c", `port=${port}`, "-c", `cluster_name=${name}`],
      { cwd: root, env, stdio: ["pipe", "pipe", log] }
    )
    closeSync(log)
    let exitCode: number | null | undefined
    const exited = new Promise<number | null>((resolve) => {
      reaper.on("exit", (code, signal) => {
        exitCode = code ?? (signal === null ? null : 128)
        resolve(exitCode)
      })
      reaper.on("error", (error) => {
        exitCode = null
        resolve(null)
        console.error(`[pgCluster] cannot run python3 ${REAPER}: ${error.message}`)
      })
    })
    const postmaster = await Promise.race([
      new Promise<number>((resolve) => createInterface({ input: reaper.stdout! }).once("line", (line) => resolve(Number(line)))),
      exited.then(() => {
        throw new Fatal(`${name} did not start (its reaper exited ${exitCode}):\n${tail(readFileSync(logPath(name), "utf8"))}`)
      })
    ])
    const handle = { reaper, postmaster, exited }
    running.set(name, handle)
    await waitFor(`${name} to accept connections on port ${port}`, async () => {
      if (exitCode !== undefined) {
        running.delete(name)
        throw new Fatal(`${name} exited (${exitCode}) while starting:\n${tail(readFileSync(logPath(name), "utf8"))}`)
      }
      const lock = readLockFile(dataDir)
      const status = lock?.text.split("\n")[7]?.trim()
      return lock?.pid === postmaster && (status === "ready" || status === "standby") ? true : undefined
    })
    return handle
  }

  /** A first start on a free port; another port when someone took the one found before the server bound it. */
  const launchOnFreePort = async (name: string): Promise<PgServer> => {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort()
      try {
        await launch(name, port)
        return serverAt(name, port)
      } catch (error) {
        const taken = /could not bind|Address already in use/.test(String(error))
        if (!taken || attempt >= START_ATTEMPTS) throw error
      }
    }
  }

  const query = async <A extends object = Record<string, unknown>>(
    server: PgServer,
    statement: string,
    params: ReadonlyArray<unknown> = [],
    database = "postgres"
  ): Promise<ReadonlyArray<A>> => {
    const exit = await Effect.runPromiseExit(
      Effect.scoped(
        Effect.flatMap(
          PgClient.make({
            url: Redacted.make(server.urlFor(database)),
            transformJson: false,
            maxConnections: 1,
            connectTimeout: "5 seconds",
            applicationName: "pgCluster"
          }),
          (sql) => sql.unsafe<A>(statement, params as Array<unknown>)
        )
      ).pipe(Effect.provide(Reactivity.layer))
    )
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.squash(exit.cause)
    const sqlState = isSqlError(failure) ? sqlStateOf(failure).code : null
    const detail = isSqlError(failure) ? String((failure.reason.cause as Error | undefined)?.message ?? failure.message) : String(failure)
    throw new PgQueryError(`${server.name} (port ${server.port}): ${detail}`, sqlState)
  }

  const inRecovery = async (server: PgServer) =>
    (await query<{ recovering: boolean }>(server, "SELECT pg_is_in_recovery() AS recovering"))[0]!.recovering

  const currentLsn = async (primary: PgServer) =>
    (await query<{ lsn: string }>(primary, "SELECT pg_current_wal_lsn()::text AS lsn"))[0]!.lsn

  const replayLsn = async (standby: PgServer) =>
    (await query<{ lsn: string | null }>(standby, "SELECT pg_last_wal_replay_lsn()::text AS lsn"))[0]!.lsn

  const caughtUp = async (standby: PgServer, primary: PgServer, lsn?: string) => {
    const target = lsn ?? (await currentLsn(primary))
    await waitFor(`${standby.name} to replay ${primary.name}'s WAL up to ${target}`, async () => {
      const [row] = await query<{ done: boolean }>(standby, "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS done", [
        target
      ])
      return row!.done ? true : undefined
    })
  }

  /** Waits until `standby` streams from `primary` (both ends say so), and is synchronous if asked. */
  const streaming = async (primary: PgServer, standby: PgServer, sync: boolean) => {
    await waitFor(`${primary.name} to stream to ${standby.name}${sync ? " synchronously" : ""}`, async () => {
      const [sender] = await query<{ state: string; sync_state: string }>(
        primary,
        "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = $1",
        [standby.name]
      )
      return sender?.state === "streaming" && (!sync || sender.sync_state === "sync") ? true : undefined
    })
    await waitFor(`${standby.name} to receive WAL in recovery`, async () => {
      const [receiver] = await query<{ recovering: boolean; status: string | null }>(
        standby,
        "SELECT pg_is_in_recovery() AS recovering, (SELECT status FROM pg_stat_wal_receiver) AS status"
      )
      return receiver?.recovering === true && receiver.status === "streaming" ? true : undefined
    })
  }

  const setSynchronousStandby = async (primary: PgServer, standby: PgServer | null) => {
    const names = standby === null ? "" : `"${standby.name}"`
    await query(primary, `ALTER SYSTEM SET synchronous_standby_names = '${names}'`)
    await query(primary, "SELECT pg_reload_conf()")
    await waitFor(`${primary.name}'s synchronous_standby_names to be '${names}'`, async () => {
      const [row] = await query<{ names: string }>(primary, "SELECT current_setting('synchronous_standby_names') AS names")
      return row!.names === names ? true : undefined
    })
    if (standby !== null) await streaming(primary, standby, true)
  }

  /** pg_basebackup -R of `primary` into `name`'s directory, streaming as application_name `name`. */
  const baseBackup = (primary: PgServer, name: string) =>
    asPostgres("pg_basebackup", [
      "-D",
      join(root, name),
      "-d",
      `host=127.0.0.1 port=${primary.port} user=postgres application_name=${name}`,
      "-R",
      "-X",
      "stream",
      "-c",
      "fast",
      "--no-sync"
    ])

  /**
   * A killed postmaster's System V segment outlives every process of it (a clean shutdown removes
   * it); on a directory pg_basebackup replaces, no restart would reuse it, so it would leak.
   */
  const removeSegment = async (lock: LockFile | null) => {
    const segment = lock?.sharedMemory
    if (segment == null || attachedTo(segment) !== 0) return
    await new Promise<void>((resolve) => execFile("ipcrm", ["-m", String(segment.id)], () => resolve()))
  }

  const runningOf = (server: PgServer): Running => {
    const handle = running.get(server.name)
    if (handle === undefined) throw new Error(`${server.name} is not running`)
    return handle
  }

  const kill = async (server: PgServer, signal: PgSignal = "SIGKILL") => {
    const { postmaster, exited } = runningOf(server)
    const lock = readLockFile(server.dataDir)
    if (signal === "SIGKILL") {
      // Stopped first, the postmaster forks no backend between the listing and the kill; a backend
      // left running could finish a commit after the crash, which no machine that died allows.
      process.kill(postmaster, "SIGSTOP")
      const backends = childrenOf(postmaster)
      process.kill(postmaster, "SIGKILL")
      for (const pid of backends) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // Already gone.
        }
      }
    } else {
      process.kill(postmaster, signal)
    }
    // The reaper exits once the postmaster and every process it left are reaped.
    await Promise.race([
      exited,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`${server.name} still runs ${DEADLINE_MS} ms after ${signal}`)), DEADLINE_MS).unref()
      )
    ])
    running.delete(server.name)
    await removeSegment(lock)
  }

  const restart = async (server: PgServer) => {
    if (running.has(server.name)) throw new Error(`${server.name} is running: kill it first`)
    await launch(server.name, server.port)
  }

  const promote = async (standby: PgServer) => {
    await asPostgres("pg_ctl", ["promote", "-D", standby.dataDir, "-w", "-t", String(DEADLINE_MS / 1000)])
    await waitFor(`${standby.name} to leave recovery`, async () => ((await inRecovery(standby)) ? undefined : true))
  }

  const pauseState = (standby: PgServer, want: string) =>
    waitFor(`${standby.name}'s replay to be ${want}`, async () => {
      const [row] = await query<{ state: string }>(standby, "SELECT pg_get_wal_replay_pause_state() AS state")
      return row!.state === want ? true : undefined
    })

  const pauseReplay = async (standby: PgServer) => {
    await query(standby, "SELECT pg_wal_replay_pause()")
    await pauseState(standby, "paused")
  }

  const resumeReplay = async (standby: PgServer) => {
    await query(standby, "SELECT pg_wal_replay_resume()")
    await pauseState(standby, "not paused")
  }

  const restartAsStandbyOf = async (server: PgServer, primary: PgServer) => {
    if (running.has(server.name)) await kill(server, "SIGQUIT")
    rmSync(server.dataDir, { recursive: true, force: true })
    await baseBackup(primary, server.name)
    await launch(server.name, server.port)
    await streaming(primary, server, false)
    if (synchronous) await setSynchronousStandby(primary, server)
  }

  const createDatabase = async (on: PgServer, name = uniqueName("ds_cluster")) => {
    await query(on, `CREATE DATABASE ${name} ${EMPTY_DATABASE}`)
    return name
  }

  const stop = async () => {
    if (stopped) return
    stopped = true
    await Promise.all(
      [...running.entries()].map(async ([name, { reaper, postmaster, exited }]) => {
        reaper.stdin?.end("stop\n")
        const done = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 10_000).unref())])
        if (!done) {
          console.error(`[pgCluster] ${name} did not stop in 10 s: SIGKILL`)
          process.kill(postmaster, "SIGKILL")
          await exited
        }
      })
    )
    running.clear()
    rmSync(root, { recursive: true, force: true })
  }

  try {
    const first = "node1"
    await asPostgres("initdb", [
      "-D",
      join(root, first),
      "-U",
      "postgres",
      "--auth=trust",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
      "--no-instructions"
    ])
    const settings = { ...SETTINGS, ...options.settings }
    const conf = join(root, first, "postgresql.conf")
    writeFileSync(
      conf,
      `${readFileSync(conf, "utf8")}\n# pgCluster.ts\n${Object.entries(settings)
        .map(([key, value]) => `${key} = ${value}`)
        .join("\n")}\n`
    )
    // Trust, but only over 127.0.0.1: these servers hold test data for one test file.
    writeFileSync(join(root, first, "pg_hba.conf"), "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n")
    const primary = await launchOnFreePort(first)
    servers.push(primary)

    const second = "node2"
    await baseBackup(primary, second)
    const standby = await launchOnFreePort(second)
    servers.push(standby)
    await streaming(primary, standby, false)
    if (synchronous) await setSynchronousStandby(primary, standby)

    return {
      primary,
      standby,
      servers,
      synchronous,
      query,
      createDatabase,
      inRecovery,
      currentLsn,
      replayLsn,
      caughtUp,
      kill,
      restart,
      promote,
      pauseReplay,
      resumeReplay,
      restartAsStandbyOf,
      setSynchronousStandby,
      logOf,
      stop
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** startPgCluster in a Scope: stopped, directory and all, when the scope closes. */
export const pgCluster = (options: PgClusterOptions = {}): Effect.Effect<PgCluster, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startPgCluster(options)),
    (cluster) => Effect.promise(() => cluster.stop())
  )
