import { EmbeddedPostgres } from "@dealstream/storage-pg"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { type Answer, errorOf, type Host, startHost } from "../http/client.js"
import { listenConnections, openSql } from "../support/consistency.js"
import { eventually, type Received, type Receiver, startReceiver } from "../webhooks/receiver.js"

// A PostgreSQL server of the test's own, stopped and started again on the same data directory and
// port under a running host: while it is down the host answers 503 at once (no request waits for
// the pool's connect timeout), /readyz says so, and when it is back the host serves again by
// itself, its LISTEN connection back in place, and deliveries queued before the outage go out.

/**
 * The host's connect timeout here, far beyond the test's own: a request that waited for a connection
 * instead of failing fast would never be answered in time, and the test fails on it, whatever the
 * machine's load, with no deadline of ours to measure against.
 */
const CONNECT_TIMEOUT_MS = 600_000

const cleanup: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined)
}, 60_000)

const timed = async (call: () => Promise<Answer>) => {
  const started = performance.now()
  const answer = await call()
  return { answer, millis: performance.now() - started }
}

describe("a host whose PostgreSQL restarts", () => {
  it("answers 503 fast while it is down, recovers by itself, and sends the deliveries queued before", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "dealstream-restart-"))
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }))
    let server = Effect.runSync(Scope.make())
    cleanup.push(() => Effect.runPromise(Scope.close(server, Exit.void)))
    const started = await Effect.runPromise(Scope.provide(EmbeddedPostgres.start({ dataDir, ephemeral: true }), server))

    // Every attempt fails until the outage begins, so deliveries wait with retries scheduled.
    const receiver: Receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const answered = new Map<Received, number>()
    let outage = false
    receiver.script((r) => {
      answered.set(r, outage ? 200 : 503)
      return { status: outage ? 200 : 503 }
    })
    // The host's log lines of 500s, kept for the assertion's message (a 500 leaves its cause there
    // only); every other line of the host is dropped, as `log: false` would.
    const internals: Array<string> = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: Array<never>) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")
      if (!text.startsWith('{"time":')) return write.call(process.stdout, chunk, ...rest)
      internals.push(...text.split("\n").filter((line) => line.includes('"status":500')))
      return true
    }) as typeof process.stdout.write
    cleanup.push(async () => {
      process.stdout.write = write
    })
    const host: Host = await startHost({
      log: true,
      storage: { postgres: started.url, connectTimeoutMillis: CONNECT_TIMEOUT_MS },
      webhooks: { allowInsecure: true, retrySchedule: Array.from({ length: 20 }, () => 1_000), timeoutMillis: 2_000 }
    })
    cleanup.push(() => host.close())
    const sql = await openSql(started.adminUrl.replace(/\/postgres$/, "/dealstream"))
    cleanup.push(() => sql.close())

    const webhook = await host.call("POST", "/v1/webhooks", { body: { url: `${receiver.url}/hook`, events: ["*"] } })
    expect(webhook.status).toBe(201)
    const queued: Array<string> = []
    for (let i = 0; i < 10; i++) {
      const created = await host.call("POST", "/v1/contacts", { body: { email: `queued${i}@example.com` } })
      expect(created.status).toBe(201)
      queued.push(created.body.id)
    }
    await receiver.waitFor((r) => new Set(r.map((x) => x.headers["webhook-id"])).size >= 10, "a first attempt of each delivery")
    await eventually(async () => ((await listenConnections(sql)).length === 1 ? true : undefined), "the worker's LISTEN connection")
    expect((await host.call("GET", "/readyz", { key: null })).status).toBe(200)

    // Writers keep going across the stop and the start: each answer is 201 or 503, never a 500.
    let writing = true
    const writes: Array<{ email: string; status: number }> = []
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        const email = `w${w}-${i}@example.com`
        const answer = await host.call("POST", "/v1/contacts", { body: { email }, headers: { "idempotency-key": email } })
        writes.push({ email, status: answer.status })
        if (answer.status === 503) await new Promise((r) => setTimeout(r, 50))
      }
    })
    await eventually(async () => (writes.length >= 20 ? true : undefined), "writes before the stop")

    // Down: every kind of request is 503 `unavailable`, answered without waiting for a connection.
    await sql.close()
    await Effect.runPromise(Scope.close(server, Exit.void))
    outage = true
    const whileDown = await Promise.all([
      timed(() => host.call("GET", "/readyz", { key: null })),
      timed(() => host.call("POST", "/v1/contacts", { body: { email: "down@example.com" } })),
      timed(() => host.call("GET", `/v1/contacts/${queued[0]}`)),
      timed(() => host.call("GET", "/v1/deals")),
      ...Array.from({ length: 12 }, (_, i) =>
        timed(() => host.call("PATCH", `/v1/contacts/${queued[i % 10]}`, { body: { title: "down" } }))
      )
    ])
    for (const { answer } of whileDown) {
      expect(answer.status, `${answer.text}\n${internals.join("\n")}`).toBe(503)
      expect(errorOf(answer).code).toBe("unavailable")
      expect(answer.headers.get("retry-after")).toBe("1")
    }
    expect((await host.call("GET", "/healthz", { key: null })).status).toBe(200)

    // Back on the same data directory and port: the host notices by itself.
    server = Effect.runSync(Scope.make())
    const again = await Effect.runPromise(Scope.provide(EmbeddedPostgres.start({ dataDir, ephemeral: true, port: started.port }), server))
    expect(again.url).toBe(started.url)
    const downFor = whileDown.length
    await eventually(
      async () => ((await host.call("GET", "/readyz", { key: null })).status === 200 ? true : undefined),
      "/readyz 200 again"
    )
    const after = await host.call("POST", "/v1/contacts", { body: { email: "after@example.com" } })
    expect(after.status, after.text).toBe(201)
    const recovered = writes.length
    await eventually(
      async () => (writes.slice(recovered).filter((w) => w.status === 201).length >= 20 ? true : undefined),
      "writes after the start"
    )
    writing = false
    await Promise.all(writers)
    expect([...new Set(writes.map((w) => w.status))].sort(), internals.join("\n")).toEqual([201, 503])
    // What was written before is still there, and nothing of the refused writes.
    expect((await host.call("GET", `/v1/contacts/${queued[9]}`)).body.title).toBeNull()
    expect((await host.call("GET", "/v1/contacts?search=down")).body.data).toEqual([])

    // The deliveries queued before the outage go out, then the new one.
    const sqlAgain = await openSql(again.adminUrl.replace(/\/postgres$/, "/dealstream"))
    cleanup.push(() => sqlAgain.close())
    // A write answered 201 is there once; one answered 503 is there at most once (its commit may
    // have been cut off after the server applied it, before its answer came back).
    const stored = new Map(
      (
        await sqlAgain.query<{ email: string; n: number }>(
          `SELECT data ->> 'email' AS email, count(*)::int AS n FROM ds_contacts GROUP BY 1`
        )
      ).map((row) => [row.email, row.n])
    )
    for (const write of writes) {
      if (write.status === 201) expect(stored.get(write.email), write.email).toBe(1)
      else expect(stored.get(write.email) ?? 0, write.email).toBeLessThanOrEqual(1)
    }
    const eventIds = (
      await sqlAgain.query<{ event_id: string }>(
        `SELECT metadata ->> 'eventId' AS event_id FROM ds_events WHERE type = 'contact.created' ORDER BY ds_events.sequence`
      )
    ).map((row) => row.event_id)
    expect(eventIds.length).toBe(stored.size)
    await receiver.waitFor(
      (r) => eventIds.every((id) => r.some((x) => x.headers["webhook-id"] === id && answered.get(x) === 200)),
      "every contact.created delivered with a 200",
      30_000
    )
    const deliveries = await eventually(async () => {
      const rows = await sqlAgain.query<{ status: string; n: number }>(
        `SELECT data ->> 'status' AS status, count(*)::int AS n FROM ds_deliveries GROUP BY 1`
      )
      return rows.length === 1 && rows[0]!.status === "succeeded" ? rows : undefined
    }, "every delivery succeeded")
    expect(deliveries).toEqual([{ status: "succeeded", n: eventIds.length }])

    // The worker listens again: a new LISTEN connection on the restarted server.
    const listening = await eventually(async () => {
      const rows = await listenConnections(sqlAgain)
      return rows.length === 1 ? rows : undefined
    }, "a LISTEN connection on the restarted server")
    console.info(
      `database restart: ${downFor} requests while down, slowest ${Math.max(...whileDown.map((d) => d.millis)).toFixed(0)} ms; ` +
        `${writes.length} writes across it (${writes.filter((w) => w.status === 503).length} answered 503); ` +
        `LISTEN again since ${listening[0]!.backend_start.toISOString()}`
    )
  }, 90_000)
})
