import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { errorOf, type Host, KEY_A, startHost } from "../http/client.js"
import { eventLog, listenConnections, liveFromLog, openSql, rebuildComparison, timelineProblems } from "../support/consistency.js"
import { workersBehindProxies } from "../support/citusNodes.js"
import { testDatabase } from "../support/pg.js"
import { startTcpProxy, type TcpProxy, viaProxy } from "../support/tcpProxy.js"
import { eventually, type Receiver, startReceiver } from "../webhooks/receiver.js"

// The host reaches PostgreSQL through a TCP proxy that resets every open connection at once (pool,
// transaction and LISTEN connections alike) and then refuses new ones for a while, under eight
// concurrent writers. Requests in flight get 503 `unavailable` (never a 500, never a hang), none
// is half applied, and the host recovers by itself: the pool reconnects, the delivery worker's
// LISTEN connection comes back, and every delivery goes out.

const cleanup: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined)
}, 60_000)

const WRITERS = 8
/** A request taking longer than this hangs; it fails the test with what it was. */
const HANG_MS = 30_000
/**
 * The host's connect timeout here, far beyond HANG_MS: a request that waited for a connection
 * instead of being refused at once would hang, and fail the test as one, whatever the machine's load.
 */
const CONNECT_TIMEOUT_MS = 600_000

interface Call {
  readonly kind: "create contact" | "create deal" | "move deal" | "update contact"
  /** A value only this request carries: email, deal name, move reason, title. */
  readonly token: string
  readonly startedAt: number
  endedAt: number
  status: number | "hung"
  body: any
  retryAfter: string | null
}

describe("a host whose database connections are cut mid-request", () => {
  it("answers 503 to what was in flight, applies nothing by halves, and recovers by itself, LISTEN included", async () => {
    const databaseScope = Effect.runSync(Scope.make())
    cleanup.push(() => Effect.runPromise(Scope.close(databaseScope, Exit.void)))
    const databaseUrl = await Effect.runPromise(Scope.provide(testDatabase, databaseScope))
    const proxy: TcpProxy = await startTcpProxy(Number(new URL(databaseUrl).port))
    cleanup.push(() => proxy.close())
    const sql = await openSql(databaseUrl)
    cleanup.push(() => sql.close())
    // On Citus the host reaches each worker too, through a proxy of its own: the cut is every one.
    const workers = await workersBehindProxies(
      sql,
      databaseUrl,
      ({ port }) => startTcpProxy(port),
      (proxy, url) => viaProxy(url, proxy)
    )
    for (const workerProxy of workers.proxies) cleanup.push(() => workerProxy.close())
    const proxies = [proxy, ...workers.proxies]
    const receiver: Receiver = await startReceiver()
    cleanup.push(() => receiver.close())

    const host: Host = await startHost({
      storage: {
        postgres: viaProxy(databaseUrl, proxy),
        connectTimeoutMillis: CONNECT_TIMEOUT_MS,
        ...(workers.proxies.length === 0 ? {} : { citusWorkerUrls: workers.urls })
      },
      rateLimit: 100_000,
      rateBurst: 100_000,
      // A claim whose answer the cut lost is sent once its lease runs out: 5 s, not timeout + 30 s.
      webhooks: { allowInsecure: true, retrySchedule: Array.from({ length: 10 }, () => 1_000), timeoutMillis: 2_000, leaseMillis: 5_000 }
    })
    let closed = false
    cleanup.push(async () => closed || host.close())
    expect((await host.call("POST", "/v1/webhooks", { body: { url: `${receiver.url}/hook`, events: ["*"] } })).status).toBe(201)
    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const stages: Array<string> = pipeline.stages.map((s: { id: string }) => s.id)
    const [listenerBefore] = await eventually(async () => {
      const rows = await listenConnections(sql)
      return rows.length === 1 ? rows : undefined
    }, "the worker's LISTEN connection")

    const calls: Array<Call> = []
    const send = async (
      kind: Call["kind"],
      token: string,
      method: string,
      path: string,
      body: unknown,
      headers: Record<string, string> = {}
    ) => {
      const call: Call = { kind, token, startedAt: performance.now(), endedAt: 0, status: "hung", body: null, retryAfter: null }
      calls.push(call)
      try {
        const response = await fetch(`${host.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(HANG_MS)
        })
        call.body = await response.json()
        call.status = response.status
        call.retryAfter = response.headers.get("retry-after")
      } catch {
        call.status = "hung"
      }
      call.endedAt = performance.now()
      return call
    }

    // Each writer makes its own records, so the only refusals are the outage's.
    let writing = true
    let n = 0
    const writer = async () => {
      while (writing) {
        const i = ++n
        const contact = await send(
          "create contact",
          `w${i}@cut.example`,
          "POST",
          "/v1/contacts",
          { email: `w${i}@cut.example` },
          { "idempotency-key": `cut-${i}` }
        )
        if (contact.status !== 201) continue
        const deal = await send("create deal", `deal ${i}`, "POST", "/v1/deals", {
          name: `deal ${i}`,
          pipeline_id: pipeline.id,
          contact_ids: [contact.body.id]
        })
        if (deal.status !== 201) continue
        await send("move deal", `move ${i}`, "PUT", `/v1/deals/${deal.body.id}/stage`, {
          stage_id: stages[1 + (i % 5)],
          reason: `move ${i}`
        })
        await send("update contact", `title ${i}`, "PATCH", `/v1/contacts/${contact.body.id}`, { title: `title ${i}` })
      }
    }
    const writers = Array.from({ length: WRITERS }, writer)
    const answered = () => calls.filter((c) => c.endedAt > 0).length

    // Cut everything once the load is on, and refuse new connections until 30 requests were refused.
    await eventually(async () => (answered() >= 150 ? true : undefined), "150 answers before the cut")
    const cutAt = performance.now()
    for (const each of proxies) each.refuse(true)
    const cut = proxies.reduce((sum, each) => sum + each.cutAll(), 0)
    await eventually(
      async () => (calls.filter((c) => c.startedAt > cutAt && c.status === 503).length >= 30 ? true : undefined),
      "30 refusals"
    )
    const ready = await host.call("GET", "/readyz", { key: null })
    for (const each of proxies) each.refuse(false)
    const reopenedAt = performance.now()
    expect(ready.status).toBe(503)
    expect(errorOf(ready).code).toBe("unavailable")

    // Recovered by itself: ready again, and writers get through again.
    await eventually(
      async () => ((await host.call("GET", "/readyz", { key: null })).status === 200 ? true : undefined),
      "/readyz 200 again"
    )
    await eventually(
      async () => (calls.filter((c) => c.startedAt > reopenedAt && c.status !== 503).length >= 100 ? true : undefined),
      "100 answers after"
    )
    writing = false
    await Promise.all(writers)

    // In flight at the cut: 503, not 500 and not a hang; all refusals say unavailable and when to retry.
    const statuses = new Set(calls.map((c) => c.status))
    expect([...statuses].sort()).toEqual([200, 201, 503])
    const inFlight = calls.filter((c) => c.startedAt < cutAt && c.endedAt > cutAt)
    expect(inFlight.filter((c) => c.status === 503).length, "requests in flight at the cut that were refused").toBeGreaterThan(0)
    for (const refused of calls.filter((c) => c.status === 503)) {
      expect(refused.body.error.code).toBe("unavailable")
      expect(refused.retryAfter).toBe("1")
    }

    // Nothing by halves: an answered write is in the log once, a refused one at most once.
    const events = await eventLog(sql)
    const tokens = new Map<string, number>()
    const count = (token: string) => tokens.set(token, (tokens.get(token) ?? 0) + 1)
    for (const event of events) {
      if (event.type === "contact.created") count(event.data["fields"]["email"])
      if (event.type === "deal.created") count(event.data["fields"]["name"])
      if (event.type === "deal.stage_changed") count(event.data["reason"])
      if (event.type === "contact.updated") count(event.data["changed"]["title"])
    }
    for (const call of calls) {
      if (call.status === 503) expect(tokens.get(call.token) ?? 0, `${call.kind} ${call.token} refused`).toBeLessThanOrEqual(1)
      else expect(tokens.get(call.token), `${call.kind} ${call.token} answered ${call.status}`).toBe(1)
    }
    expect(await timelineProblems(sql, events)).toEqual([])
    const [live] = await sql.query<{ contacts: number; deals: number }>(
      `SELECT (SELECT count(*)::int FROM ds_contacts WHERE deleted_at IS NULL) AS contacts,
              (SELECT count(*)::int FROM ds_deals WHERE deleted_at IS NULL) AS deals`
    )
    expect(live).toEqual({ contacts: liveFromLog(events, "contact"), deals: liveFromLog(events, "deal") })

    // The worker hears signals again on a new LISTEN connection, and what is written now is sent.
    const [listenerAfter] = await eventually(async () => {
      const rows = await listenConnections(sql)
      return rows.length === 1 && rows[0]!.pid !== listenerBefore!.pid ? rows : undefined
    }, "a new LISTEN connection")
    const late = await host.call("POST", "/v1/contacts", { body: { email: "late@cut.example" } })
    expect(late.status).toBe(201)

    // Every event committed reaches the receiver (a claim whose answer the cut lost waits for its
    // lease), and every delivery succeeds.
    const announced = (await eventLog(sql)).filter((e) => e.type.startsWith("contact.") || e.type.startsWith("deal."))
    const wanted = new Set(announced.map((e) => e.event_id))
    await receiver.waitFor(
      (r) => {
        const got = new Set(r.map((x) => String(x.headers["webhook-id"])))
        return [...wanted].every((id) => got.has(id))
      },
      `${wanted.size} events`,
      60_000
    )
    await eventually(async () => {
      const rows = await sql.query<{ status: string; n: number }>(
        `SELECT data ->> 'status' AS status, count(*)::int AS n FROM ds_deliveries GROUP BY 1`
      )
      return rows.length === 1 && rows[0]!.status === "succeeded" && rows[0]!.n === wanted.size ? true : undefined
    }, `${wanted.size} deliveries succeeded`)

    // With the host stopped, every document is its events' projection.
    await host.close()
    closed = true
    const { after, before } = await rebuildComparison(sql, databaseUrl)
    expect(after).toEqual(before)

    const slowest = Math.max(...calls.filter((c) => c.status === 503).map((c) => c.endedAt - c.startedAt))
    console.info(
      `connections cut: ${cut} open connections reset under ${WRITERS} writers; ${calls.length} requests, ${inFlight.length} in flight at the cut ` +
        `(${inFlight.filter((c) => c.status === 503).length} answered 503), ${calls.filter((c) => c.status === 503).length} answered 503 in all, ` +
        `slowest 503 ${slowest.toFixed(0)} ms; refused for ${(reopenedAt - cutAt).toFixed(0)} ms; LISTEN back ` +
        `${(listenerAfter!.backend_start.getTime() - (performance.timeOrigin + reopenedAt)).toFixed(0)} ms after reopening; ${wanted.size} events delivered`
    )
  }, 90_000)
})
