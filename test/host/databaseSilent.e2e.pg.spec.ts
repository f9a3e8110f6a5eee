import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { serve } from "../http/cli.js"
import { callerOf, errorOf, KEY_A } from "../http/client.js"
import { openSql } from "../support/consistency.js"
import { workersBehindProxies } from "../support/citusNodes.js"
import { testDatabase } from "../support/pg.js"
import { type SilencingProxy, startSilencingProxy } from "../storage/silencingProxy.js"

// The host (the built CLI, `dealstream serve`) reaches PostgreSQL through a proxy that then drops
// every packet both ways without closing anything, for connections open and new: a partition the
// operating system would take many minutes to give up on. Its statements have a deadline
// (--database-timeout), so a request made then is answered 503 in the API's error shape.

const cleanup: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined)
}, 60_000)

describe("a host whose database goes silent", () => {
  it("answers 503 unavailable, in the error shape, seconds after its --database-timeout, not the 30 s default", async () => {
    const databaseScope = Effect.runSync(Scope.make())
    cleanup.push(() => Effect.runPromise(Scope.close(databaseScope, Exit.void)))
    const databaseUrl = await Effect.runPromise(Scope.provide(testDatabase, databaseScope))
    const proxy: SilencingProxy = await startSilencingProxy(databaseUrl)
    cleanup.push(() => proxy.close())
    const sql = await openSql(databaseUrl)
    cleanup.push(() => sql.close())
    // On Citus the host reaches each worker too (storage-pg's citusWorkers.ts), through a proxy of
    // its own here.
    const workers = await workersBehindProxies(
      sql,
      databaseUrl,
      ({ url }) => startSilencingProxy(url),
      (proxy) => proxy.url
    )
    for (const workerProxy of workers.proxies) cleanup.push(() => workerProxy.close())
    const workerUrls = Object.entries(workers.urls)
      .map(([node, url]) => `${node}=${url}`)
      .join(",")

    const host = await serve(["--storage", "postgres", "--database-timeout", "1s", "--api-keys", `ws_a:${KEY_A}`], {
      DATABASE_URL: proxy.url,
      ...(workerUrls === "" ? {} : { DEALSTREAM_CITUS_WORKER_URLS: workerUrls })
    })
    cleanup.push(async () => {
      host.child.kill("SIGKILL")
      await host.exit
    })
    const call = callerOf(host.url)
    const created = await call("POST", "/v1/contacts", { body: { email: "before@example.com" } })
    expect(created.status).toBe(201)

    // An answer takes the 1 s deadline and up to 5 s more (the driver's wait for the interrupted
    // statement, see PgStorage's statementTimeout): far below the 30 s of a host that ignored the
    // option, and loose enough that no load on the machine can trip it.
    const timed = async <A>(call: () => Promise<A>) => {
      const started = performance.now()
      const answer = await call()
      return { answer, seconds: (performance.now() - started) / 1000 }
    }

    proxy.partition()
    if (workers.proxies.length > 0) {
      // The coordinator alone silent: a GET and a commit go to the workspace's worker, and answer.
      // The write is stored there, and the coordinator's signal failing after it does not make it a
      // 503, which a client would send again.
      const got = await call("GET", `/v1/contacts/${created.body.id}`)
      expect(got.status, got.text).toBe(200)
      const { answer: stored, seconds } = await timed(() => call("POST", "/v1/contacts", { body: { email: "meanwhile@example.com" } }))
      expect(seconds).toBeLessThan(20)
      expect(stored.status, stored.text).toBe(201)
      const rows = await sql.query("SELECT id FROM ds_contacts WHERE data ->> 'email' = 'meanwhile@example.com'")
      expect(rows.map((row) => row["id"])).toEqual([stored.body.id])
      for (const workerProxy of workers.proxies) workerProxy.partition()
    }

    const { answer: read, seconds: readSeconds } = await timed(() => call("GET", `/v1/contacts/${created.body.id}`))
    expect(readSeconds).toBeLessThan(20)
    expect(read.status).toBe(503)
    expect(errorOf(read).code).toBe("unavailable")
    expect(read.headers.get("retry-after")).toBe("1")
    const { answer: write, seconds: writeSeconds } = await timed(() =>
      call("POST", "/v1/contacts", { body: { email: "after@example.com" } })
    )
    expect(writeSeconds).toBeLessThan(20)
    expect(write.status).toBe(503)
    expect(errorOf(write).code).toBe("unavailable")
    expect(write.text).not.toMatch(/127\.0\.0\.1|postgres|no answer/i)
  }, 60_000)
})
