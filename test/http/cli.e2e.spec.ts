import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { createServer, request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const BIN = resolve(import.meta.dirname, "../../packages/http/dist/bin.js")

interface Cli {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exit: Promise<number | null>
}

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Cli => {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== "PORT" && !key.startsWith("DEALSTREAM_")))
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...clean, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => (stdout += chunk))
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  const exit = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
  return { child, stdout: () => stdout, stderr: () => stderr, exit }
}

/** Starts `dealstream serve` on a free port and resolves its URL once it listens. */
const serve = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const cli = run(["serve", "--host", "127.0.0.1", "--port", "0", ...args], env)
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(cli.stderr())
    if (match) return { ...cli, url: match[1]! }
    if (cli.child.exitCode !== null) throw new Error(`exited early: ${cli.stderr()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  cli.child.kill("SIGKILL")
  throw new Error(`did not start: ${cli.stderr()}`)
}

const oneLine = (text: string) => text.trimEnd().split("\n")

describe("dealstream serve", () => {
  it("refuses storages that are not available yet, with one line and a non-zero exit", async () => {
    const cli = run(["serve", "--storage", "embedded"])
    expect(await cli.exit).not.toBe(0)
    expect(oneLine(cli.stderr())).toEqual(["dealstream: storage embedded is not available yet (use --storage memory)"])
    const pg = run(["serve"], { DEALSTREAM_STORAGE: "postgres" })
    expect(await pg.exit).not.toBe(0)
    expect(oneLine(pg.stderr())).toEqual(["dealstream: storage postgres is not available yet (use --storage memory)"])
  })

  it("reports a bad variable or flag value in one line", async () => {
    const rate = run(["serve"], { DEALSTREAM_RATE_LIMIT: "fast" })
    expect(await rate.exit).not.toBe(0)
    expect(oneLine(rate.stderr())).toEqual(["dealstream: DEALSTREAM_RATE_LIMIT must be a positive number of requests per second, got \"fast\""])
    const port = run(["serve", "--port", "99999"])
    expect(await port.exit).not.toBe(0)
    expect(oneLine(port.stderr())).toEqual(["dealstream: --port must be a port number (0-65535), got \"99999\""])
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
      const cli = run(["serve", "--host", "127.0.0.1", "--port", String(port), "--api-keys", "ws:key"])
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

    const lines = cli.stdout().trimEnd().split("\n").map((line) => JSON.parse(line))
    const line = lines.find((l) => l.request_id === "log-test-1")
    expect(line).toMatchObject({ level: "info", method: "POST", path: "/v1/contacts", status: 400, workspace_id: "ws_flag" })
    expect(typeof line.time).toBe("string")
    expect(typeof line.duration_ms).toBe("number")
    expect(cli.stdout()).not.toMatch(/flag_key_123|env_key_123|logged@example\.com|secret-query|Bearer/)
  })

  it("on SIGTERM stops accepting, finishes the request in flight, and exits 0", async () => {
    const cli = await serve(["--api-keys", "ws:term_key"])
    const url = new URL(cli.url)
    const inFlight = new Promise<{ status: number; body: string }>((done, fail) => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: "/v1/contacts",
        method: "POST",
        headers: { authorization: "Bearer term_key", "content-type": "application/json", "transfer-encoding": "chunked" }
      }, (res) => {
        let body = ""
        res.on("data", (chunk) => (body += chunk))
        res.on("end", () => done({ status: res.statusCode!, body }))
      })
      req.on("error", fail)
      req.write("{\"email\":")
      setTimeout(() => {
        cli.child.kill("SIGTERM")
        setTimeout(async () => {
          const refused = await fetch(`${cli.url}/healthz`).then(() => "accepted", () => "refused")
          req.end(`"${refused}@example.com"}`)
        }, 300)
      }, 300)
    })
    const answer = await inFlight
    expect(answer.status).toBe(201)
    expect(JSON.parse(answer.body).email).toBe("refused@example.com")
    expect(await cli.exit).toBe(0)
  })
})
