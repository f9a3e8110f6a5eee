import {
  type DeliveryQueue,
  Engine,
  EngineLive,
  IdsLive,
  type JsonObject,
  type RequestContext,
  runDeliveryWorker,
  Storage,
  WebhookConfig
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { PgStorage } from "@dealstream/storage-pg"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Clock, Effect, Exit, Layer, Random, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as NodeWebhookTransport from "../../packages/http/src/webhooks/NodeWebhookTransport.js"
import { type StorageKind, STORAGES } from "../http/client.js"
import { testDatabase } from "../support/pg.js"

// The real delivery worker, on engine time (TestClock), sending through the real transport to a real
// receiver on 127.0.0.1 that answers each delivery's attempts from a random script. Engine time is
// moved by the test from one due time to the next, so a schedule of minutes runs in milliseconds and
// every wait the worker chose can be read off the attempts it recorded.

const SCHEDULE = [60_000, 120_000, 240_000]
// Long polls keep TestClock.adjust cheap: it runs the worker once per poll interval it crosses.
const POLL = 10_000
/** Rounds of the loop that drives engine time, and stalled rounds (5 ms of real time each) per nudge. */
const MAX_ROUNDS = 2_000
const STALLS_PER_NUDGE = 10
/**
 * The worker's lease, longer than all the nudges of a run can add: while an attempt is in flight
 * only nudges move engine time, so however slow an attempt is in real time, the test itself can
 * never expire its lease and let the worker claim the same delivery again. (The default lease,
 * timeout + 30 s, ran out after five nudges of a slow attempt.)
 */
const LEASE = (MAX_ROUNDS / STALLS_PER_NUDGE + 1) * POLL

type StorageLayer = Layer.Layer<Storage | DeliveryQueue, unknown>

/** What the receiver does with one request. `drop`: closes the connection without an answer. */
type Answer = { readonly status: number; readonly retryAfter?: number } | "drop"

const answer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom<Answer>({ status: 200 }, { status: 204 }) },
  { weight: 4, arbitrary: fc.constantFrom<Answer>({ status: 500 }, { status: 502 }, { status: 404 }, "drop") },
  { weight: 1, arbitrary: fc.constant<Answer>({ status: 410 }) },
  {
    weight: 2,
    arbitrary: fc.record({ status: fc.constantFrom(429, 503), retryAfter: fc.integer({ min: 0, max: 600 }) })
  }
)

interface Scenario {
  /** One script per delivery (one contact created per script): answers to its attempts 1, 2, … */
  readonly scripts: ReadonlyArray<ReadonlyArray<Answer>>
  /** What every jitter draw of the worker returns: Random.next in [0, 1). */
  readonly draw: number
  /** Delete the webhook once this many attempts have been recorded, or never. */
  readonly deleteAfter: number | null
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  scripts: fc.array(fc.array(answer, { minLength: SCHEDULE.length + 1, maxLength: SCHEDULE.length + 1 }), {
    minLength: 1,
    maxLength: 4
  }),
  draw: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  deleteAfter: fc.option(fc.nat(8), { nil: null })
})

/** The marker's contact: its requests are not the scenario's. */
const MARKER = "marker@example.com"

const isSuccess = (a: Answer) => a !== "drop" && a.status >= 200 && a.status <= 299
const statusOf = (a: Answer) => (a === "drop" ? null : a.status)

/** The wait API.md promises after a failed attempt: the delay ±20%, or Retry-After within [delay, 2·delay]. */
const waitBounds = (delay: number, a: Answer): readonly [number, number] =>
  a !== "drop" && (a.status === 429 || a.status === 503) && a.retryAfter !== undefined
    ? [delay, 2 * delay]
    : [Math.ceil(delay * 0.8), Math.floor(delay * 1.2)]

/** The exact wait for a jitter draw, from the same rule, to see that the draw is what spreads it. */
const expectedWait = (delay: number, a: Answer, draw: number) => {
  const spread = delay * (1 + 0.2 * (2 * draw - 1))
  const [min, max] = waitBounds(delay, a)
  const wanted = a !== "drop" && a.retryAfter !== undefined ? Math.max(spread, a.retryAfter * 1000) : spread
  return Math.min(Math.max(Math.round(wanted), min), max)
}

interface Request {
  readonly delivery: string
  readonly email: string
  readonly timestamp: number
}

/** A real receiver: answers the n-th request of a delivery with its script's n-th answer. */
const receiver = {
  server: null as Server | null,
  url: "",
  scripts: new Map<string, ReadonlyArray<Answer>>(),
  requests: [] as Array<Request>,
  reset(scripts: ReadonlyArray<ReadonlyArray<Answer>>) {
    this.scripts = new Map(scripts.map((script, i) => [`p${i}@example.com`, script]))
    this.requests = []
  }
}

beforeAll(async () => {
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { contact: { email: string } } }
      const delivery = String(request.headers["x-service-delivery"])
      const nth = receiver.requests.filter((r) => r.delivery === delivery).length
      receiver.requests.push({ delivery, email: payload.data.contact.email, timestamp: Number(request.headers["webhook-timestamp"]) })
      const scripted = receiver.scripts.get(payload.data.contact.email)?.[nth] ?? { status: 200 }
      if (scripted === "drop") {
        request.socket.destroy()
        return
      }
      const headers: Record<string, string> = { "content-type": "text/plain" }
      if (scripted.retryAfter !== undefined) headers["retry-after"] = String(scripted.retryAfter)
      response.writeHead(scripted.status, headers).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  receiver.server = server
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
})

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.server?.close(() => resolve()) ?? resolve())
})

const engineLayer = (storage: StorageLayer) =>
  EngineLive.pipe(
    Layer.provideMerge(storage),
    Layer.provideMerge(IdsLive),
    // The worker needs these itself, not only through the engine: merged, or its fiber dies unprovided.
    Layer.provideMerge(WebhookConfig.layer({ allowInsecure: true, retrySchedule: SCHEDULE, timeoutMillis: 10_000 })),
    Layer.provideMerge(NodeWebhookTransport.layer)
  )

/**
 * Every draw of the worker is `draw` (what Random.fixed([draw]) of Effect 3 gave): Random.next and
 * Random.nextBetween read the double, integer draws its rounding.
 */
const fixedRandom = (draw: number): Random.Random => ({
  nextDoubleUnsafe: () => draw,
  nextIntUnsafe: () => Math.round(draw)
})

/** Real time passes (sockets, the receiver), engine time does not. */
const realPause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

type Delivery = JsonObject & {
  readonly id: string
  readonly status: string
  readonly next_attempt_at: string | null
  readonly attempts: ReadonlyArray<{ readonly attempted_at: string; readonly status_code: number | null }>
}

interface Outcome {
  readonly deliveries: ReadonlyArray<Delivery & { readonly email: string }>
  readonly webhookStatus: string | null
  readonly deleted: boolean
  /** Requests each delivery had received when the test first saw it finished; nothing may follow. */
  readonly frozen: ReadonlyMap<string, number>
  /** Requests in all when the test first saw the webhook failed or deleted; nothing may follow. */
  readonly frozenAll: number | null
  readonly eventIds: ReadonlyArray<string>
  /**
   * Each time the test moved engine time on by POLL while the worker had due work (an attempt in
   * flight, or the worker asleep until its next poll): the engine time the nudge ended at.
   */
  readonly nudges: ReadonlyArray<number>
}

const run = ({ deleteAfter, draw, scripts }: Scenario, storageLayer: StorageLayer, ctx: RequestContext) =>
  Effect.gen(function* () {
    const engine = yield* Engine
    const storage = yield* Storage
    const webhook = yield* engine.webhooks.create(ctx, {
      url: receiver.url,
      events: ["contact.created"],
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    })
    const webhookId = String(webhook.data["id"])
    for (let i = 0; i < scripts.length; i++) yield* engine.contacts.create(ctx, { email: `p${i}@example.com` })
    const listed = yield* engine.webhooks.deliveries(ctx, webhookId, { limit: "100" })
    const ids = listed.data.map((d) => String(d["id"]))

    yield* runDeliveryWorker({ owner: "worker-1", pollMillis: POLL, leaseMillis: LEASE }).pipe(
      Effect.provideService(Random.Random, fixedRandom(draw)),
      Effect.forkScoped
    )

    const read = Effect.forEach(ids, (id) =>
      Effect.map(storage.getDocument("delivery", ctx.workspaceId, id), (doc) => doc!.data as Delivery)
    )
    const webhookStatus = Effect.map(storage.getDocument("webhook", ctx.workspaceId, webhookId), (doc) =>
      doc === null || doc.deletedAt !== null ? null : String(doc.data["status"])
    )
    const frozen = new Map<string, number>()
    let frozenAll: number | null = null
    let deleted = false
    const sent = (id: string) => receiver.requests.filter((r) => r.delivery === id).length

    let stalls = 0
    const nudges: Array<number> = []
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = yield* Clock.currentTimeMillis
      const deliveries = yield* read
      const due = deliveries.filter((d) => d.status === "pending" && Date.parse(d.next_attempt_at!) <= now)
      if (due.length > 0) {
        // An attempt is on its way, or the worker is asleep until its next poll: wait, then nudge.
        yield* realPause(5)
        if (++stalls % STALLS_PER_NUDGE === 0) {
          yield* TestClock.adjust(POLL)
          nudges.push(yield* Clock.currentTimeMillis)
        }
        continue
      }
      stalls = 0
      for (const d of deliveries) if (d.status !== "pending" && !frozen.has(d.id)) frozen.set(d.id, sent(d.id))
      if (frozenAll === null && (deleted || (yield* webhookStatus) !== "active")) frozenAll = receiver.requests.length
      const attempts = deliveries.reduce((n, d) => n + d.attempts.length, 0)
      if (!deleted && deleteAfter !== null && attempts >= deleteAfter) {
        yield* engine.webhooks.delete(ctx, webhookId, null)
        deleted = true
        continue
      }
      const pending = deliveries.filter((d) => d.status === "pending")
      if (pending.length === 0) break
      const next = Math.min(...pending.map((d) => Date.parse(d.next_attempt_at!)))
      yield* TestClock.adjust(next - now)
    }
    // Long after everything ended, nothing more may be sent. Engine time moves far on; then a marker
    // delivery (in a workspace of its own, due after anything else could be) is driven to its record
    // like the others. The worker claims everything due, in due order, so whatever it still had to
    // send has gone out by then: the check waits for that record, not for a while.
    for (let i = 0; i < 3; i++) yield* TestClock.adjust(SCHEDULE[SCHEDULE.length - 1]!)
    const markerCtx: RequestContext = { ...ctx, workspaceId: `${ctx.workspaceId}_marker` }
    const marker = yield* engine.webhooks.create(markerCtx, { url: receiver.url, events: ["contact.created"] })
    yield* engine.contacts.create(markerCtx, { email: MARKER })
    const [markerDelivery] = (yield* engine.webhooks.deliveries(markerCtx, String(marker.data["id"]), { limit: "100" })).data
    for (let round = 1; ; round++) {
      const doc = yield* storage.getDocument("delivery", markerCtx.workspaceId, String(markerDelivery!["id"]))
      if (doc!.data["status"] !== "pending") break
      if (round > MAX_ROUNDS) return yield* Effect.die(new Error("the marker delivery was never recorded"))
      yield* realPause(5)
      if (round % STALLS_PER_NUDGE === 0) yield* TestClock.adjust(POLL)
    }
    const deliveries = yield* read
    // A delivery that failed turns its webhook failed in its attempt's fiber right after its own
    // record, and the marker's record may come first (the worker records without reading the
    // stream): wait for the webhook's commit, a bounded number of rounds; check() says if it came.
    // That commit is retried every 250 ms of engine time while the storage is unavailable (a loaded
    // cluster's moment): engine time is nudged as the marker's wait does, or the retry never wakes.
    for (let round = 1; !deleted && round <= MAX_ROUNDS && deliveries.some((d) => d.status === "failed"); round++) {
      if ((yield* webhookStatus) !== "active") break
      yield* realPause(5)
      if (round % STALLS_PER_NUDGE === 0) yield* TestClock.adjust(POLL)
    }
    return {
      deliveries: deliveries.map((d) => ({ ...d, email: String(((d["payload_data"] as JsonObject)["contact"] as JsonObject)["email"]) })),
      webhookStatus: yield* webhookStatus,
      deleted,
      frozen,
      frozenAll,
      nudges,
      eventIds: deliveries.map((d) => String(d["event_id"]))
    } satisfies Outcome
  }).pipe(Effect.scoped, Effect.provide(engineLayer(storageLayer)), Effect.provide(TestClock.layer()))

const check = ({ deleteAfter, draw, scripts }: Scenario, outcome: Outcome) => {
  // Exactly one delivery per contact.created event, all of them finished.
  expect(outcome.deliveries).toHaveLength(scripts.length)
  expect(new Set(outcome.eventIds).size).toBe(scripts.length)
  let anyFailed = false
  for (const d of outcome.deliveries) {
    const script = scripts[Number(/^p(\d+)@/.exec(d.email)![1])]!
    const attempts = d.attempts
    const requests = receiver.requests.filter((r) => r.delivery === d.id)
    expect(["succeeded", "failed", "cancelled"]).toContain(d.status)
    // Never beyond the schedule; every request sent was recorded, and answered from the script.
    expect(attempts.length).toBeLessThanOrEqual(SCHEDULE.length + 1)
    expect(requests).toHaveLength(attempts.length)
    attempts.forEach((attempt, k) => {
      expect(attempt.status_code).toBe(statusOf(script[k]!))
    })
    // Signed afresh: each attempt carries its own, later timestamp.
    for (let k = 1; k < requests.length; k++) expect(requests[k]!.timestamp).toBeGreaterThan(requests[k - 1]!.timestamp)
    // Each retry waited what the schedule, the jitter draw and Retry-After say; never earlier.
    for (let k = 1; k < attempts.length; k++) {
      const gap = Date.parse(attempts[k]!.attempted_at) - Date.parse(attempts[k - 1]!.attempted_at)
      const [min, max] = waitBounds(SCHEDULE[k - 1]!, script[k - 1]!)
      const exact = expectedWait(SCHEDULE[k - 1]!, script[k - 1]!, draw)
      expect(exact).toBeGreaterThanOrEqual(min)
      expect(exact).toBeLessThanOrEqual(max)
      expect(gap).toBeGreaterThanOrEqual(exact)
      // Late only by the nudges the test made within this gap to catch the worker between sleeps
      // (a nudge may straddle either end: the worker can read the clock while an adjust is under way).
      const from = Date.parse(attempts[k - 1]!.attempted_at)
      const to = Date.parse(attempts[k]!.attempted_at)
      const within = outcome.nudges.filter((end) => end > from && end - POLL < to).length
      expect(gap, `retry ${k} of ${d.email}: ${within} nudges within the gap`).toBeLessThanOrEqual(exact + within * POLL)
    }
    // The outcome follows from the answers: no attempt after a success, a 410, or the last retry.
    const stop = script.findIndex((a) => isSuccess(a) || (a !== "drop" && a.status === 410))
    const needed = stop < 0 ? SCHEDULE.length + 1 : stop + 1
    if (d.status === "succeeded") {
      expect(attempts.length).toBe(needed)
      expect(isSuccess(script[needed - 1]!)).toBe(true)
    } else if (d.status === "failed") {
      anyFailed = true
      expect(attempts.length).toBe(needed)
      expect(stop < 0 || !isSuccess(script[stop]!)).toBe(true)
    } else {
      // Cancelled: only because the webhook was deleted or failed, before the script ran out.
      expect(outcome.deleted || outcome.webhookStatus === "failed").toBe(true)
      expect(attempts.length).toBeLessThan(needed)
    }
    // Finished is final: not one request after the test saw it finished.
    expect(requests.length).toBe(outcome.frozen.get(d.id))
  }
  if (outcome.frozenAll !== null) expect(receiver.requests.filter((r) => r.email !== MARKER).length).toBe(outcome.frozenAll)
  if (outcome.deleted) expect(outcome.webhookStatus).toBeNull()
  else expect(outcome.webhookStatus).toBe(anyFailed ? "failed" : "active")
  if (deleteAfter === null && !anyFailed) {
    for (const d of outcome.deliveries) expect(d.status).toBe("succeeded")
  }
}

// PostgreSQL: one database for the file, a workspace per run (its queue is shared, its deliveries are not).
const database = Effect.runSync(Scope.make())
let databaseUrl = ""
beforeAll(async () => {
  databaseUrl = await Effect.runPromise(Scope.provide(testDatabase, database))
})
afterAll(() => Effect.runPromise(Scope.close(database, Exit.void)))

const storages: ReadonlyArray<readonly [string, () => StorageLayer, number]> = [
  ["memory", () => MemoryStorage.layer, 40],
  ["postgres", () => PgStorage.layer(databaseUrl), 12]
]

describe.each(storages.filter(([name]) => STORAGES.includes(name as StorageKind)))(
  "the delivery worker on engine time (TestClock), a real transport and receiver, %s storage",
  (_name, storage, numRuns) => {
    it("retries on schedule within the jitter bounds, never beyond it, never after success, failure or cancel", async () => {
      let runs = 0
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          receiver.reset(s.scripts)
          const ctx: RequestContext = { workspaceId: `acme_${runs++}`, requestId: null, actor: "property" }
          const outcome = await Effect.runPromise(run(s, storage(), ctx))
          check(s, outcome)
        }),
        { numRuns }
      )
    }, 300_000)
  }
)
