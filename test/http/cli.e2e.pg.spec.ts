import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { serverUrl } from "../support/pg.js"
import { lines as oneLine, openRequest, run, serve, untilRefused } from "./cli.js"

// CLI behaviour (flags, one-line failures, logs, signals) is about the process, not the records:
// memory storage unless a test is about storage. Embedded restarts are in test/host.
describe("dealstream serve", () => {
  it("names the storages it knows when given another, in one line", async () => {
    const cli = run(["serve", "--storage", "sqlite"])
    expect(await cli.exit).toBe(1)
    expect(oneLine(cli.stderr())).toEqual(['dealstream: --storage must be embedded, postgres or memory, got "sqlite"'])
    const env = run(["serve"], { DEALSTREAM_STORAGE: "Postgres" })
    expect(await env.exit).toBe(1)
    expect(oneLine(env.stderr())).toEqual(['dealstream: DEALSTREAM_STORAGE must be embedded, postgres or memory, got "Postgres"'])
  })

  it("postgres without a URL, with a malformed one, or with an unreachable database exits with one line", async () => {
    const missing = run(["serve", "--storage", "postgres"])
    expect(await missing.exit).toBe(1)
    expect(oneLine(missing.stderr())).toEqual([
      "dealstream: storage postgres needs DATABASE_URL (or --database-url), e.g. postgres://user:password@localhost:5432/dealstream"
    ])

    const malformed = run(["serve", "--storage", "postgres"], { DATABASE_URL: "mysql://root:hunter2@db/crm" })
    expect(await malformed.exit).toBe(1)
    expect(oneLine(malformed.stderr())).toEqual([
      "dealstream: DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database, several hosts as h1:5432,h2:5432)"
    ])

    // A port nobody listens on: taken from a server that is closed again.
    const probe = createServer()
    await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done))
    const port = (probe.address() as { port: number }).port
    await new Promise((done) => probe.close(done))
    const refused = run(["serve", "--storage", "postgres", "--database-url", `postgres://app:s3cret@127.0.0.1:${port}/test`])
    expect(await refused.exit).toBe(1)
    expect(oneLine(refused.stderr())).toEqual([`dealstream: cannot connect to PostgreSQL at 127.0.0.1:${port}/test: connection refused`])
    expect(refused.stderr()).not.toContain("s3cret")

    // The run's server is up, but this database is not on it.
    const url = new URL(serverUrl())
    url.pathname = "/ds_no_such_database"
    const unknown = run(["serve", "--storage", "postgres"], { DATABASE_URL: url.toString() })
    expect(await unknown.exit).toBe(1)
    expect(oneLine(unknown.stderr())).toEqual([
      `dealstream: cannot connect to PostgreSQL at ${url.hostname}:${url.port || "5432"}/ds_no_such_database: database "ds_no_such_database" does not exist`
    ])
    // A CLI process per case, one after another: seconds each on a loaded 2-core machine.
  }, 90_000)

  it("prints the storage in use, and the help text names every storage", async () => {
    const cli = await serve(["--api-keys", "ws:banner_key"])
    expect(cli.stderr()).toContain(`dealstream listening on ${cli.url} (storage: memory (nothing survives a restart))`)
    cli.child.kill("SIGTERM")
    expect(await cli.exit).toBe(0)

    const help = run(["--help"])
    expect(await help.exit).toBe(0)
    expect(help.stdout()).toMatch(/--storage <kind>\s+DEALSTREAM_STORAGE\s+embedded \(default\)/)
    expect(help.stdout()).toContain("--database-url <url>  DATABASE_URL")
    expect(help.stdout()).toContain("dealstream rebuild")
  })

  it("rebuild refuses memory storage and options it does not take", async () => {
    const memory = run(["rebuild", "--storage", "memory"])
    expect(await memory.exit).toBe(1)
    expect(oneLine(memory.stderr())).toEqual(["dealstream: rebuild needs a database: memory storage keeps nothing between runs"])
    const port = run(["rebuild", "--port", "3000"])
    expect(await port.exit).toBe(2)
    expect(oneLine(port.stderr())[0]).toBe("dealstream: unknown option --port")
  })

  it("reports a bad variable or flag value in one line", async () => {
    const rate = run(["serve"], { DEALSTREAM_RATE_LIMIT: "fast" })
    expect(await rate.exit).not.toBe(0)
    expect(oneLine(rate.stderr())).toEqual([
      'dealstream: DEALSTREAM_RATE_LIMIT must be a positive number of requests per second, got "fast"'
    ])
    const port = run(["serve", "--port", "99999"])
    expect(await port.exit).not.toBe(0)
    expect(oneLine(port.stderr())).toEqual(['dealstream: --port must be a port number (0-65535), got "99999"'])
    const keys = run(["serve"], { DEALSTREAM_API_KEYS: "no-colon-here" })
    expect(await keys.exit).not.toBe(0)
    expect(oneLine(keys.stderr())).toHaveLength(1)
    expect(keys.stderr()).not.toMatch(/\bat .*\.js/)
  })

  it("reports a taken port in one line", async () => {
    const blocker = createServer()
    await new Promise<void>((done) => blocker.listen(0, "127.0.0.1", done))
    const port = (blocker.address() as { port: number }).port
    try {
      const cli = run(["serve", "--storage", "memory", "--host", "127.0.0.1", "--port", String(port), "--api-keys", "ws:key"])
      expect(await cli.exit).not.toBe(0)
      expect(oneLine(cli.stderr())).toEqual([`dealstream: port ${port} is already in use`])
    } finally {
      blocker.close()
    }
  })

  it("makes a dev key on first start (file mode 0600), prints it, and reuses it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "dealstream-dev-"))
    const first = await serve(["--data-dir", dataDir])
    const file = join(dataDir, "dev-api-key.json")
    const stored = JSON.parse(readFileSync(file, "utf8"))
    expect(stored.workspace_id).toBe("dev")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(first.stderr()).toContain(stored.api_key)
    const answer = await fetch(`${first.url}/v1/contacts`, { headers: { authorization: `Bearer ${stored.api_key}` } })
    expect(answer.status).toBe(200)
    first.child.kill("SIGTERM")
    expect(await first.exit).toBe(0)

    const second = await serve([], { DEALSTREAM_DATA_DIR: dataDir })
    expect(second.stderr()).toContain(stored.api_key)
    expect(JSON.parse(readFileSync(file, "utf8")).api_key).toBe(stored.api_key)
    second.child.kill("SIGTERM")
    expect(await second.exit).toBe(0)
  })

  it("lets flags override variables, and logs one JSON line per request without secrets", async () => {
    const cli = await serve(["--api-keys", "ws_flag:flag_key_123"], { DEALSTREAM_API_KEYS: "ws_env:env_key_123" })
    expect((await fetch(`${cli.url}/v1/contacts`, { headers: { authorization: "Bearer env_key_123" } })).status).toBe(401)
    const created = await fetch(`${cli.url}/v1/contacts?x=secret-query`, {
      method: "POST",
      headers: { authorization: "Bearer flag_key_123", "content-type": "application/json", "x-request-id": "log-test-1" },
      body: JSON.stringify({ email: "logged@example.com" })
    })
    expect(created.status).toBe(400)
    cli.child.kill("SIGTERM")
    expect(await cli.exit).toBe(0)

    const lines = cli
      .stdout()
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
    const line = lines.find((l) => l.request_id === "log-test-1")
    expect(line).toMatchObject({ level: "info", method: "POST", path: "/v1/contacts", status: 400, workspace_id: "ws_flag" })
    expect(typeof line.time).toBe("string")
    expect(typeof line.duration_ms).toBe("number")
    expect(cli.stdout()).not.toMatch(/flag_key_123|env_key_123|logged@example\.com|secret-query|Bearer/)
  })

  it("on SIGTERM stops accepting, finishes the request in flight, and exits 0", async () => {
    const cli = await serve(["--api-keys", "ws:term_key"])
    // A request the host has begun to read, whose body is still arriving when SIGTERM comes.
    const inFlight = await openRequest(
      cli.url,
      "/v1/contacts",
      { authorization: "Bearer term_key", "content-type": "application/json" },
      '{"email":'
    )
    cli.child.kill("SIGTERM")
    // The host stops accepting connections while that request is open...
    await untilRefused(cli.url)
    // ...and still answers it, then exits.
    const answer = await inFlight.finish('"inflight@example.com"}')
    expect(answer.status, answer.body).toBe(201)
    expect(JSON.parse(answer.body).email).toBe("inflight@example.com")
    expect(await cli.exit).toBe(0)
  })
})
