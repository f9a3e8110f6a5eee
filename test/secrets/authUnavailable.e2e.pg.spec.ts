import { EmbeddedPostgres } from "@dealstream/storage-pg"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { run } from "../http/cli.js"
import { errorOf, startHost } from "../http/client.js"

// A server of its own (not the run's), so the test can stop it under a running host.
describe("authentication when the database is gone", () => {
  it("a key the host must look up is 503 unavailable (never 401 or 500), a malformed header still 401", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "dealstream-auth-down-"))
    const server = Effect.runSync(Scope.make())
    try {
      const { url } = await Effect.runPromise(Scope.provide(EmbeddedPostgres.start({ dataDir, ephemeral: true }), server))
      const created = run(["keys", "create", "--workspace", "acme", "--storage", "postgres", "--database-url", url])
      expect(await created.exit).toBe(0)
      const storedKey = created.stdout().trim()
      const host = await startHost({ storage: { postgres: url } })
      try {
        expect((await host.call("GET", "/v1/contacts", { key: storedKey })).status).toBe(200)
        expect((await host.call("GET", "/v1/contacts", { key: "dsk_unknown_before" })).status).toBe(401)

        await Effect.runPromise(Scope.close(server, Exit.void))

        const unknown = await host.call("GET", "/v1/contacts", { key: "dsk_unknown_after" })
        expect(unknown.status).toBe(503)
        expect(errorOf(unknown).code).toBe("unavailable")
        expect(unknown.headers.get("retry-after")).toBe("1")
        expect(unknown.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres|dsk_unknown_after/i)
        const malformed = await host.call("GET", "/v1/contacts", { headers: { authorization: "Token dsk_unknown_after" } })
        expect(malformed.status).toBe(401)
        expect(errorOf(malformed).code).toBe("unauthorized")
      } finally {
        await host.close()
      }
    } finally {
      await Effect.runPromise(Scope.close(server, Exit.void))
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
