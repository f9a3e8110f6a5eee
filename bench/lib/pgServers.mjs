// PostgreSQL 15 servers of the machine's own binaries, for the scenarios that need servers of their
// own (scaleout: a primary and a standby that can be SIGKILLed and promoted, lib/pgPair.mjs; citus:
// a plain server and Citus clusters, lib/citusClusters.mjs), which the embedded server of
// lib/postgres.mjs (one per bench run, shared) cannot be.
//
// How a server runs: `setpriv --pdeathsig SIGKILL unshare --fork --pid --ipc --kill-child=SIGKILL
// setpriv --reuid=postgres … postgres -D dir`. PostgreSQL refuses root, hence the postgres user.
// The postmaster is PID 1 of a PID namespace of its own, so that
// - SIGKILL to it is a crash of the whole server: the kernel kills every process of the namespace
//   with it (no backend outlives its postmaster to finish a commit) and reaps them (this machine's
//   PID 1 is not a reliable reaper, and pid_max is 32768);
// - the IPC namespace takes its System V segments with it (a SIGKILLed postmaster leaves them
//   otherwise); dynamic shared memory is System V too, for the same reason;
// - unshare exits once every process of the server is gone: its exit is "the server is gone";
// - if the bench dies, unshare dies (pdeathsig) and so does the server (kill-child, pdeathsig).
// The data directories (in /dev/shm where it is a tmpfs) are removed by stop(), and at exit (SIGINT
// and SIGTERM made exits) by the hook below.
import { execFile, execFileSync, spawn } from "node:child_process"
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import postgres from "postgres"
import { parentOf } from "./cpuTime.mjs"

export const PG15_BIN = "/usr/lib/postgresql/15/bin"
const DEADLINE_MS = 30_000

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Every postmaster and directory made here: killed and removed at exit whatever happened (stop() does it first). */
const postmasters = new Set()
const directories = new Set()
let hooked = false
const cleanUpAtExit = () => {
  if (hooked) return
  hooked = true
  process.on("exit", () => {
    for (const pid of postmasters) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
    for (const dir of directories) rmSync(dir, { recursive: true, force: true })
  })
  // Ctrl-C or a kill of the bench: an exit, so that the hook above (and processes.mjs's) runs.
  process.once("SIGINT", () => process.exit(130))
  process.once("SIGTERM", () => process.exit(143))
}

const TMPFS_MAGIC = 0x01021994
/**
 * /dev/shm when it is a tmpfs (as the tests' clusters): on this shared machine a start on the
 * local disk took 4 s under other engineers' test runs, and a SIGKILLed server's processes wait for
 * their disk writes before they are gone. fsync costs nothing there: the figures leave out disk flushes.
 */
export const parentDir = () => {
  try {
    if (statfsSync("/dev/shm").type === TMPFS_MAGIC) return "/dev/shm"
  } catch {
    // no /dev/shm
  }
  return tmpdir()
}

/** A directory of the postgres user's, removed at exit if not before. */
const makeRoot = (prefix) => {
  cleanUpAtExit()
  const user = postgresUser()
  const root = mkdtempSync(join(parentDir(), prefix))
  directories.add(root)
  chownSync(root, user.uid, user.gid)
  return root
}

const removeRoot = (root) => {
  rmSync(root, { recursive: true, force: true })
  directories.delete(root)
}

const postgresUser = () => {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"))
  if (line === undefined) return null
  const [, , uid, gid] = line.split(":")
  return { uid: Number(uid), gid: Number(gid) }
}

/** Why servers (with these tools of PG15_BIN) cannot be started on this machine, or null when they can. */
export const serversUnavailable = (tools = ["postgres", "initdb", "pg_ctl"]) => {
  const missing = tools.filter((tool) => !existsSync(join(PG15_BIN, tool)))
  if (missing.length > 0) return `PostgreSQL 15 binaries not found (${missing.join(", ")} missing in ${PG15_BIN})`
  if (process.getuid?.() !== 0) return "needs root (PostgreSQL runs as the postgres user, in a PID namespace of its own)"
  if (postgresUser() === null) return "no `postgres` system user"
  try {
    execFileSync("unshare", ["--fork", "--pid", "--ipc", "true"], { stdio: "ignore" })
    execFileSync("setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", "true"], { stdio: "ignore" })
    execFileSync("nsenter", ["--version"], { stdio: "ignore" })
  } catch (error) {
    return `cannot run servers in namespaces of their own (unshare, setpriv, nsenter): ${error.message}`
  }
  return null
}

export const asPostgres = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--pdeathsig", "SIGKILL", "--"]
// A clean environment: none of the caller's PG* variables reach the servers and tools.
export const toolEnv = (home) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LC_ALL: "C", TZ: "UTC" })

export const run = (command, args, options) =>
  new Promise((resolve, reject) =>
    execFile(command, args, { timeout: DEADLINE_MS, ...options }, (error, stdout, stderr) =>
      error === null
        ? resolve(stdout)
        : reject(new Error(`${args.find((a) => a.includes("/bin/")) ?? command} failed: ${stderr.trim() || error.message}`))
    )
  )

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** Polls `check` until it answers something other than undefined; a thrown error is retried until the deadline. */
export const waitUntil = async (what, check, { deadlineMs = DEADLINE_MS, everyMs = 20 } = {}) => {
  const deadline = Date.now() + deadlineMs
  let last
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch (error) {
      if (error?.fatal) throw error
      last = error
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}${last === undefined ? "" : `: ${last.message ?? last}`}`)
    await sleep(everyMs)
  }
}

/** Every server's settings: reachable on 127.0.0.1 only, a standby that streams and serves reads. */
const SETTINGS = {
  listen_addresses: "'127.0.0.1'",
  unix_socket_directories: "''",
  shared_buffers: "'64MB'",
  max_connections: "100",
  wal_level: "replica",
  max_wal_senders: "8",
  wal_keep_size: "'64MB'",
  hot_standby: "on",
  // The primary's pg_stat_replication follows the standby within a second (default 10 s).
  wal_receiver_status_interval: "'1s'",
  // Gone with the IPC namespace when the server dies, unlike POSIX segments in /dev/shm.
  dynamic_shared_memory_type: "sysv",
  jit: "off"
}

/**
 * A directory that initdb filled once, with the settings above and 127.0.0.1-only trust
 * authentication, copied for every server that starts from it (initdb is most of a start-up).
 * fsync and synchronous_commit on (initdb's defaults; a commit waits for a synchronous standby only
 * with the latter).
 */
export const makeTemplate = async () => {
  const root = makeRoot("ds-bench-pg-template-")
  const dir = join(root, "data")
  await run(
    asPostgres[0],
    [
      ...asPostgres.slice(1),
      join(PG15_BIN, "initdb"),
      "-D",
      dir,
      "-U",
      "postgres",
      "--auth=trust",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
      "--no-instructions"
    ],
    { cwd: root, env: toolEnv(root) }
  )
  const conf = join(dir, "postgresql.conf")
  const lines = Object.entries(SETTINGS).map(([key, value]) => `${key} = ${value}`)
  writeFileSync(conf, `${readFileSync(conf, "utf8")}\n# bench/lib/pgServers.mjs\n${lines.join("\n")}\n`)
  writeFileSync(join(dir, "pg_hba.conf"), "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n")
  return { dir, remove: () => removeRoot(root) }
}

/**
 * A group of servers in one directory (`prefix…` under /dev/shm), each started by `launchOnFreePort`
 * on a free port of 127.0.0.1 from a data directory of the group's (`copyTemplate` makes one), and
 * all stopped (SIGKILL) and removed by `stop`. A server is
 * `{ name, port, dataDir, postmaster, exited, launcher }`, `postmaster` its pid out here.
 */
export const startServerGroup = (prefix) => {
  const root = makeRoot(prefix)
  const env = toolEnv(root)
  const running = new Map()
  const clients = new Set()

  const logOf = (name) => {
    try {
      return readFileSync(join(root, `${name}.log`), "utf8")
        .trimEnd()
        .split("\n")
        .slice(-12)
        .join("\n")
    } catch {
      return ""
    }
  }

  /** One client per call (closed by stop); `database` defaults to postgres. */
  const connect = (server, database = "postgres", options = {}) => {
    const sql = postgres(`postgres://postgres@127.0.0.1:${server.port}/${database}`, {
      max: 1,
      onnotice: () => {},
      connect_timeout: 5,
      connection: { application_name: "bench-servers" },
      ...options
    })
    clients.add(sql)
    return sql
  }

  /** One statement on a connection of its own, closed before this returns. */
  const query = async (server, text, database = "postgres") => {
    const sql = connect(server, database)
    try {
      return await sql.unsafe(text)
    } finally {
      clients.delete(sql)
      await sql.end({ timeout: 1 })
    }
  }

  /** A copy of the template's data directory as `name`'s (then launch `name`). */
  const copyTemplate = (template, name) => run("cp", ["-a", template.dir, join(root, name)])

  /** `settings`: more `-c key=value` for this server. */
  const launch = async (name, port, settings) => {
    const dataDir = join(root, name)
    const log = openSync(join(root, `${name}.log`), "a")
    const child = spawn(
      asPostgres[0],
      [
        "--pdeathsig",
        "SIGKILL",
        "unshare",
        "--fork",
        "--pid",
        "--ipc",
        "--kill-child=SIGKILL",
        ...asPostgres,
        join(PG15_BIN, "postgres"),
        "-D",
        dataDir,
        "-c",
        `port=${port}`,
        "-c",
        `cluster_name=${name}`,
        ...Object.entries(settings).flatMap(([key, value]) => ["-c", `${key}=${value}`])
      ],
      { cwd: root, env, stdio: ["ignore", log, log] }
    )
    closeSync(log)
    let exitCode
    const exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        exitCode = code ?? signal
        resolve(exitCode)
      })
      child.once("error", (error) => {
        exitCode = error.message
        resolve(exitCode)
      })
    })
    const gone = () => {
      const error = new Error(`${name} exited (${exitCode}) while starting:\n${logOf(name)}`)
      error.fatal = true
      return error
    }
    // The postmaster: unshare's one child (PID 1 inside, its own pid out here).
    const postmaster = await waitUntil(`${name}'s postmaster`, async () => {
      if (exitCode !== undefined) throw gone()
      return findChild(child.pid)
    })
    postmasters.add(postmaster)
    exited.then(() => postmasters.delete(postmaster))
    const server = { name, port, dataDir, postmaster, exited, launcher: child }
    running.set(name, server)
    await waitUntil(`${name} to accept connections on port ${port}`, async () => {
      if (exitCode !== undefined) {
        running.delete(name)
        throw gone()
      }
      // Ours, not another server that took the port first.
      const [{ data_directory }] = await query(server, "SHOW data_directory")
      return data_directory === dataDir ? true : data_directory
    }).then(async (answer) => {
      if (answer === true) return
      process.kill(postmaster, "SIGKILL")
      await exited
      running.delete(name)
      throw new Error(`${name}: port ${port} already in use, by the server of ${answer}`)
    })
    return server
  }

  const launchOnFreePort = async (name, settings = {}) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await launch(name, await freePort(), settings)
      } catch (error) {
        // Someone took the port between its finding and the server's bind: another one.
        if (!/could not bind|already in use/.test(String(error.message)) || attempt >= 3) throw error
      }
    }
  }

  /** SIGKILL to the postmaster: the kernel kills the whole server with it. Resolves once every process is gone. */
  const kill = async (server) => {
    process.kill(server.postmaster, "SIGKILL")
    let timer
    await Promise.race([
      server.exited,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${server.name} still runs ${DEADLINE_MS / 1000} s after SIGKILL`)), DEADLINE_MS)
      })
    ]).finally(() => clearTimeout(timer))
    running.delete(server.name)
  }

  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await Promise.all([...clients].map((sql) => sql.end({ timeout: 1 }).catch(() => {})))
    await Promise.all(
      [...running.values()].map(async (server) => {
        try {
          process.kill(server.postmaster, "SIGKILL")
        } catch {
          // already gone
        }
        // The launcher too, should the postmaster have been gone before it.
        const timer = setTimeout(() => server.launcher.kill("SIGKILL"), 10_000)
        await server.exited
        clearTimeout(timer)
      })
    )
    running.clear()
    removeRoot(root)
  }

  return { root, env, copyTemplate, launchOnFreePort, connect, query, kill, logOf, stop }
}

/** The child of `pid` (scanning /proc), or undefined while it has none. */
const findChild = (pid) => {
  for (const name of readdirOfProc()) {
    if (parentOf(Number(name)) === pid) return Number(name)
  }
  return undefined
}

const readdirOfProc = () => readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))
