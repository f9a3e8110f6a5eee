#!/usr/bin/env node
import { ConfigProblem, resolveHostConfig, type Setting, VARIABLES } from "./host/HostConfig.js"
import { startServer, StartupError } from "./host/startServer.js"

const USAGE = `usage: dealstream serve [options]

  --port <n>          PORT                   (default 3000)
  --host <address>    DEALSTREAM_HOST        (default: all interfaces)
  --storage <kind>    DEALSTREAM_STORAGE     memory (default); embedded and postgres are not available yet
  --data-dir <path>   DEALSTREAM_DATA_DIR    (default ./.dealstream; holds the dev API key)
  --api-keys <list>   DEALSTREAM_API_KEYS    workspace_a:key_a,workspace_b:key_b (default: a dev key)
  --rate-limit <n>    DEALSTREAM_RATE_LIMIT  requests per second per key (default 100)
  --rate-burst <n>    DEALSTREAM_RATE_BURST  bucket size per key (default 200)

Flags override environment variables.`

/** One line on stderr and a non-zero exit: operators read the cause, not a stack trace. */
const fail = (message: string, code = 1): never => {
  process.stderr.write(`dealstream: ${message}\n`)
  process.exit(code)
}

const parseFlags = (args: ReadonlyArray<string>): Partial<Record<Setting, string>> => {
  const flags: Partial<Record<Setting, string>> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("--")) fail(`unexpected argument ${JSON.stringify(arg)}\n${USAGE}`, 2)
    const eq = arg.indexOf("=")
    const name = arg.slice(2, eq < 0 ? undefined : eq)
    if (!(name in VARIABLES)) fail(`unknown option --${name}\n${USAGE}`, 2)
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1)
    if (value === undefined) fail(`--${name} needs a value`, 2)
    flags[name as Setting] = value
  }
  return flags
}

const serve = async (args: ReadonlyArray<string>) => {
  let config
  try {
    config = resolveHostConfig(parseFlags(args), process.env)
  } catch (error) {
    if (error instanceof ConfigProblem) fail(error.message)
    throw error
  }
  const server = await startServer({
    port: config.port,
    ...(config.host === undefined ? {} : { host: config.host }),
    ...(config.apiKeys === null ? {} : { apiKeys: config.apiKeys }),
    dataDir: config.dataDir,
    rateLimit: config.rateLimit,
    rateBurst: config.rateBurst
  }).catch((error: unknown) => fail(error instanceof StartupError ? error.message : `cannot start: ${String(error)}`))

  // Human-oriented lines go to stderr; stdout carries only JSON log lines.
  process.stderr.write(`dealstream listening on ${server.url} (storage: ${config.storage})\n`)
  if (server.devApiKey !== null) {
    const { created, file, key } = server.devApiKey
    process.stderr.write(
      `dev workspace "${key.workspaceId}" API key${created ? " (new)" : ""}: ${key.key}\n  stored in ${file}; set DEALSTREAM_API_KEYS to use your own keys\n`
    )
  }

  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    server.close().then(() => process.exit(0), (error: unknown) => fail(`error while stopping: ${String(error)}`))
  }
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
}

const [command, ...rest] = process.argv.slice(2)
if (command === "serve") {
  await serve(rest)
} else if (command === undefined || command === "help" || command === "--help" || command === "-h") {
  process.stdout.write(`${USAGE}\n`)
} else {
  fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`, 2)
}
