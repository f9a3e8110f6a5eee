import { EmbeddedPostgres } from "@dealstream/storage-pg"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { errorOf, startHost } from "../http/client.js"

// A server of its own (not the run's), so the test can stop it under a running host.
describe("a host whose PostgreSQL goes away", () => {
  it("answers 503 unavailable with Retry-After and no internals, and /healthz stays 200", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "dealstream-down-"))
    const server = Effect.runSync(Scope.make())
    try {
      const { url } = await Effect.runPromise(Scope.provide(EmbeddedPostgres.start({ dataDir, ephemeral: true }), server))
      const host = await startHost({ storage: { postgres: url } })
      try {
        expect((await host.call("POST", "/v1/contacts", { body: { email: "before@example.com" } })).status).toBe(201)
        expect((await host.call("GET", "/readyz", { key: null })).status).toBe(200)

        await Effect.runPromise(Scope.close(server, Exit.void))

        const ready = await host.call("GET", "/readyz", { key: null })
        expect(ready.status).toBe(503)
        expect(errorOf(ready).code).toBe("unavailable")
        const write = await host.call("POST", "/v1/contacts", { body: { email: "after@example.com" } })
        expect(write.status).toBe(503)
        expect(write.headers.get("retry-after")).toBe("1")
        expect(errorOf(write).code).toBe("unavailable")
        expect(write.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres/i)
        expect((await host.call("GET", "/healthz", { key: null })).status).toBe(200)
      } finally {
        await host.close()
      }
    } finally {
      await Effect.runPromise(Scope.close(server, Exit.void))
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
