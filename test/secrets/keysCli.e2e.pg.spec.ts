import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { lines, run, serve } from "../http/cli.js"
import { startHost } from "../http/client.js"
import { testDatabase } from "../support/pg.js"
import { rowsContaining, sha256Hex, until } from "./support.js"

// `dealstream keys` against a real PostgreSQL database, and a host process of the built CLI on it.
// 300 s a test: each `dealstream keys` is a process that opens the storage and migrates, and on the
// Citus cluster shared by the suite's files in parallel one test's processes took over 120 s in CI.
describe("dealstream keys on PostgreSQL", () => {
  const scope = Effect.runSync(Scope.make())
  let url = ""
  let storage: ReadonlyArray<string> = []
  beforeAll(async () => {
    url = await Effect.runPromise(Scope.provide(testDatabase, scope))
    storage = ["--storage", "postgres", "--database-url", url]
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  const keys = async (...args: ReadonlyArray<string>) => {
    const cli = run(["keys", ...args, ...storage])
    return { code: await cli.exit, stdout: cli.stdout(), stderr: cli.stderr() }
  }

  const create = async (workspace: string) => {
    const created = await keys("create", "--workspace", workspace)
    expect(created.code).toBe(0)
    // The key alone on stdout (KEY=$(dealstream keys create …)); what it is on stderr, without it.
    expect(lines(created.stdout)).toHaveLength(1)
    const key = created.stdout.trim()
    expect(key).toMatch(/^dsk_[A-Za-z0-9_-]{43}$/)
    const keyId = /created API key (key_[0-9a-f]{12}) for workspace "([^"]+)"/.exec(created.stderr)
    expect(keyId?.[1]).toBe(`key_${sha256Hex(key).slice(0, 12)}`)
    expect(keyId?.[2]).toBe(workspace)
    expect(created.stderr).not.toContain(key)
    return { key, keyId: keyId![1]! }
  }

  it("a created key opens its own workspace on a running host, a revoked one stops within the cache window, and the database never holds the key", async () => {
    const acme = await create("acme")
    const globex = await create("globex")

    // No keys configured, keys stored: the host makes no dev key and says so.
    const dataDir = mkdtempSync(join(tmpdir(), "dealstream-keys-"))
    const host = await serve([...storage, "--data-dir", dataDir])
    try {
      expect(host.stderr()).toContain("API keys: 2 made with `dealstream keys create`; no dev key while keys are stored")
      expect(host.stderr()).not.toContain("dev workspace")
      expect(existsSync(join(dataDir, "dev-api-key.json"))).toBe(false)

      const call = (key: string, method: string, path: string, body?: unknown) =>
        fetch(`${host.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        }).then(async (response) => ({ status: response.status, body: (await response.json().catch(() => null)) as any }))

      const mine = await call(acme.key, "POST", "/v1/contacts", { email: "ada@acme.example" })
      expect(mine.status).toBe(201)
      const theirs = await call(globex.key, "POST", "/v1/contacts", { email: "bob@globex.example" })
      expect(theirs.status).toBe(201)
      const listed = await call(acme.key, "GET", "/v1/contacts")
      expect(listed.status).toBe(200)
      expect(listed.body.data.map((c: any) => c.email)).toEqual(["ada@acme.example"])
      expect((await call(acme.key, "GET", `/v1/contacts/${theirs.body.id}`)).status).toBe(404)

      const revoked = await keys("revoke", acme.keyId)
      expect(revoked.code).toBe(0)
      expect(revoked.stdout).toBe(`revoked ${acme.keyId} (workspace "acme"); running hosts refuse it within 5 seconds\n`)
      // The host may answer from its cache for up to 5 s; 10 s is a generous bound, not a measurement.
      await until(async () => (await call(acme.key, "GET", "/v1/contacts")).status === 401, "the revoked key to be refused", 10_000)
      const refused = await call(acme.key, "GET", "/v1/contacts")
      expect(refused.body.error.code).toBe("unauthorized")
      expect((await call(globex.key, "GET", "/v1/contacts")).status).toBe(200)

      const again = await keys("revoke", acme.keyId)
      expect(again.code).toBe(0)
      expect(again.stdout).toMatch(new RegExp(`^${acme.keyId} \\(workspace "acme"\\) was already revoked at \\d{4}-`))
    } finally {
      host.child.kill("SIGTERM")
      expect(await host.exit).toBe(0)
      rmSync(dataDir, { recursive: true, force: true })
    }
    expect(host.stdout() + host.stderr()).not.toMatch(new RegExp(`${acme.key}|${globex.key}`))

    const listed = await keys("list")
    expect(listed.code).toBe(0)
    const rows = lines(listed.stdout)
    expect(rows[0]).toMatch(/^KEY ID\s+WORKSPACE\s+CREATED\s+REVOKED\s+EXPIRES\s+SCOPES\s+NAME$/)
    const acmeRow = rows.find((row) => row.startsWith(acme.keyId))!.split(/\s+/)
    expect(acmeRow).toEqual([acme.keyId, "acme", expect.stringMatching(/^\d{4}-.*Z$/), expect.stringMatching(/^\d{4}-.*Z$/), "-", "*", "-"])
    expect(rows.find((row) => row.startsWith(globex.keyId))!.split(/\s+/)).toEqual([
      globex.keyId,
      "globex",
      expect.any(String),
      "-",
      "-",
      "*",
      "-"
    ])
    for (const secret of [acme.key, globex.key, sha256Hex(acme.key), sha256Hex(globex.key)]) {
      expect(listed.stdout + listed.stderr).not.toContain(secret)
    }
    expect(lines((await keys("list", "--workspace", "globex")).stdout)).toHaveLength(2)
    expect((await keys("list", "--workspace", "initech")).stdout).toBe("no API keys\n")

    // Every column of every table, event payloads included: the digest is there (so the search
    // works), the key is nowhere.
    for (const { key } of [acme, globex]) {
      const withKey = await rowsContaining(url, key)
      expect(Object.keys(withKey)).toEqual(expect.arrayContaining(["ds_events", "ds_api_keys", "ds_contacts"]))
      expect(Object.values(withKey).every((n) => n === 0)).toBe(true)
      const withDigest = await rowsContaining(url, sha256Hex(key))
      expect(withDigest["ds_events"]).toBe(1)
      expect(withDigest["ds_api_keys"]).toBe(1)
    }
    // Eleven CLI processes and a host: 30 to 50 s on a 2-core machine shared with other test files.
  }, 300_000)

  it("says what is wrong in one line: an unknown key id, a missing or bad workspace, memory storage", async () => {
    const unknown = await keys("revoke", "key_000000000000")
    expect(unknown.code).toBe(1)
    expect(lines(unknown.stderr)).toEqual(["dealstream: no API key key_000000000000 (see dealstream keys list)"])

    const missing = await keys("create")
    expect(missing.code).toBe(2)
    expect(lines(missing.stderr)).toEqual(["dealstream: keys create needs --workspace <id>"])
    const reserved = await keys("create", "--workspace", "$system")
    expect(reserved.code).toBe(2)
    expect(lines(reserved.stderr)).toEqual(['dealstream: --workspace must be 1 to 64 letters, digits, _ or -, got "$system"'])

    const memory = run(["keys", "create", "--workspace", "acme", "--storage", "memory"])
    expect(await memory.exit).toBe(1)
    expect(lines(memory.stderr())).toEqual(["dealstream: keys need a database: memory storage keeps nothing between runs"])
    expect(memory.stdout()).toBe("")

    const help = run(["--help"])
    expect(await help.exit).toBe(0)
    expect(help.stdout()).toContain("dealstream keys create --workspace <id> [--name <text>] [--scopes <list>]")
    expect(help.stdout()).toContain("--expires <when>")
    expect(help.stdout()).toContain("within 5 seconds")
    // A CLI process per case, one after another: seconds each on a loaded 2-core machine.
  }, 90_000)
})

describe("dealstream keys create with a name, scopes and an expiry", () => {
  const scope = Effect.runSync(Scope.make())
  let url = ""
  let storage: ReadonlyArray<string> = []
  beforeAll(async () => {
    url = await Effect.runPromise(Scope.provide(testDatabase, scope))
    storage = ["--storage", "postgres", "--database-url", url]
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  const keys = async (...args: ReadonlyArray<string>) => {
    const cli = run(["keys", ...args, ...storage])
    return { code: await cli.exit, stdout: cli.stdout(), stderr: cli.stderr() }
  }

  it("stores them, says them, lists them, and a host holds the key to them", async () => {
    const made = await keys(
      "create",
      "--workspace",
      "acme",
      "--name",
      "Nightly report",
      "--scopes",
      "contacts:read,keys:manage",
      "--expires",
      "30d"
    )
    expect(made.code, made.stderr).toBe(0)
    const key = made.stdout.trim()
    const keyId = `key_${sha256Hex(key).slice(0, 12)}`
    const expires = /expires (\S+);/.exec(made.stderr)?.[1]
    expect(Date.parse(expires!) - Date.now()).toBeGreaterThan(29 * 86_400_000)
    expect(made.stderr).toContain(
      `created API key ${keyId} for workspace "acme" (scopes contacts:read,keys:manage; expires ${expires}; name "Nightly report";`
    )
    const instant = await keys("create", "--workspace", "acme", "--expires", "2099-01-01T01:00:00+01:00", "--scopes", "*")
    expect(instant.code, instant.stderr).toBe(0)
    expect(instant.stderr).toContain("(scopes *; expires 2099-01-01T00:00:00.000Z; storage:")

    const listed = lines((await keys("list", "--workspace", "acme")).stdout)
    expect(listed[1]!.split(/\s+/)).toEqual([
      keyId,
      "acme",
      expect.any(String),
      "-",
      expires,
      "contacts:read,keys:manage",
      "Nightly",
      "report"
    ])

    // A host on the same database: the key does what its scopes allow, and manages keys.
    const host = await startHost({ storage: { postgres: url } })
    try {
      expect((await host.call("GET", "/v1/contacts", { key })).status).toBe(200)
      expect((await host.call("POST", "/v1/contacts", { key, body: { email: "cli@example.com" } })).status).toBe(403)
      const record = await host.call("GET", `/v1/api-keys/${keyId}`, { key })
      expect(record.body).toMatchObject({ name: "Nightly report", scopes: ["contacts:read", "keys:manage"], expires_at: expires })
    } finally {
      await host.close()
    }
  }, 90_000)

  it("refuses a bad flag in one line that names it", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number, string]> = [
      [["--scopes", "contacts:read,deals:delete"], 1, 'dealstream: --scopes "deals:delete" is not a known scope'],
      [["--name", " "], 1, "dealstream: --name must be a string of 1 to 200 characters, not blank"],
      [["--expires", "2020-01-01T00:00:00Z"], 1, "dealstream: --expires must be later than now"],
      [
        ["--expires", "soon"],
        2,
        'dealstream: --expires must be an instant with its offset (2027-01-01T00:00:00Z) or a duration such as 90d, got "soon"'
      ]
    ]
    for (const [flags, code, message] of cases) {
      const refused = await keys("create", "--workspace", "acme", ...flags)
      expect(refused.code, refused.stderr).toBe(code)
      expect(lines(refused.stderr)).toEqual([message])
      expect(refused.stdout).toBe("")
    }
    const misplaced = await keys("revoke", "key_000000000000", "--name", "x")
    expect(misplaced.code).toBe(2)
    expect(lines(misplaced.stderr)).toEqual(["dealstream: --name is a keys create option"])
  }, 90_000)
})

describe("dealstream keys on the embedded storage", () => {
  it("works next to a running host through its database server; the host's dev key stays until it restarts", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "dealstream-keys-embedded-"))
    const devKey = () => String(JSON.parse(readFileSync(join(dataDir, "dev-api-key.json"), "utf8")).api_key)
    try {
      const host = await serve(["--data-dir", dataDir], {}, { cliDefault: true })
      let stopped = false
      try {
        expect(host.stderr()).toContain("API key (new)")
        const created = run(["keys", "create", "--workspace", "acme", "--data-dir", dataDir])
        expect(await created.exit).toBe(0)
        expect(created.stderr()).toContain("of a running host")
        const key = created.stdout().trim()
        const status = (auth: string) =>
          fetch(`${host.url}/v1/contacts`, { headers: { authorization: `Bearer ${auth}` } }).then((r) => r.status)
        expect(await status(key)).toBe(200)
        // The dev key was decided when this host started: it keeps working here.
        expect(await status(devKey())).toBe(200)

        const keyId = `key_${sha256Hex(key).slice(0, 12)}`
        const revoked = run(["keys", "revoke", keyId, "--data-dir", dataDir])
        expect(await revoked.exit).toBe(0)
        await until(async () => (await status(key)) === 401, "the revoked key to be refused", 10_000)

        host.child.kill("SIGTERM")
        stopped = true
        expect(await host.exit).toBe(0)
      } finally {
        if (!stopped) host.child.kill("SIGKILL")
      }

      // Stopped: the command starts the cluster itself. A key has been stored, so the next start makes no dev key.
      const listed = run(["keys", "list", "--data-dir", dataDir])
      expect(await listed.exit).toBe(0)
      expect(lines(listed.stdout())).toHaveLength(2)
      const again = await serve(["--data-dir", dataDir], {}, { cliDefault: true })
      expect(again.stderr()).toContain("API keys: 0 made with `dealstream keys create` (and 1 revoked); no dev key while keys are stored")
      try {
        const refused = await fetch(`${again.url}/v1/contacts`, { headers: { authorization: `Bearer ${devKey()}` } })
        expect(refused.status).toBe(401)
      } finally {
        again.child.kill("SIGTERM")
      }
      expect(await again.exit).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 300_000)
})
