import { Effect, Exit, Scope } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, KEY_A, KEY_B, startHost } from "../http/client.js"
import { testDatabase } from "../support/pg.js"
import { type Receiver, startReceiver } from "../webhooks/receiver.js"
import { expectAcceptable } from "./answers.js"
import {
  anyPlans,
  bodyPlans,
  encodePlan,
  encodeWire,
  type Fixtures,
  headerPlans,
  idPlans,
  type Plan,
  queryPlans,
  wirePlans,
  type WirePlan
} from "./arbitraries.js"
import { type Database, openDatabase, type Snapshot } from "./database.js"
import { seedFixtures, settle } from "./fixtures.js"
import { encodeRequest, type RawRequest, sendRaw } from "./rawHttp.js"

/*
 * Hostile input against the running host on PostgreSQL. Property: whatever arrives, the answer is
 * never 5xx, every 4xx has API.md's error body, and a 4xx leaves the database as it was (the log's
 * length and head, every stream version, every document). Between requests the suite waits until
 * no delivery is pending, so the delivery worker cannot write between the two snapshots.
 *
 * Setup uses every workspace once before the properties: a workspace's first request creates its
 * default pipeline whatever the request is, which is provisioning, not the request's effect.
 */

let host: Host
let receiver: Receiver
let database: Database
let fixtures: Fixtures
const databaseScope = Effect.runSync(Scope.make())

beforeAll(async () => {
  const url = await Effect.runPromise(Scope.extend(testDatabase, databaseScope))
  receiver = await startReceiver()
  host = await startHost({
    storage: { postgres: url },
    rateLimit: 1_000_000,
    rateBurst: 1_000_000,
    webhooks: { allowInsecure: true, retrySchedule: [20, 20], timeoutMillis: 2_000 }
  })
  database = await openDatabase(url)
  fixtures = await seedFixtures(host, database, { own: KEY_A, other: KEY_B }, receiver.url)
})

afterAll(async () => {
  await host?.close()
  await receiver?.close()
  await database?.close()
  await Effect.runPromise(Scope.close(databaseScope, Exit.void))
})

const shown = (plan: unknown) => {
  const text = JSON.stringify(plan, (_, value) => (typeof value === "string" && value.length > 300 ? `${value.slice(0, 300)}…(${value.length})` : value))
  return text.length > 3000 ? `${text.slice(0, 3000)}…` : text
}

/**
 * A webhook the fuzz registered or re-pointed somewhere other than the receiver would make the
 * worker dial random targets: it is removed before the next request.
 */
const afterSuccess = async (request: RawRequest, text: string) => {
  if (!["POST", "PATCH"].includes(request.method)) return
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return
  }
  if (typeof body?.id !== "string" || !body.id.startsWith("wh_") || typeof body.url !== "string") return
  if (body.url.startsWith(receiver.url)) return
  for (const key of [KEY_A, KEY_B]) {
    if ((await host.call("DELETE", `/v1/webhooks/${body.id}`, { key })).status === 204) return
  }
}

/**
 * The state before the next request: the snapshot taken after the last 4xx, which changed nothing,
 * or (after a 2xx, which may have scheduled deliveries) a new one once no delivery is pending.
 */
let current: Snapshot | null = null

const exchange = async (what: string, request: RawRequest) => {
  const before = current ?? await settle(database).then(() => database.snapshot())
  current = null
  const answer = await sendRaw(host.url, encodeRequest(request))
  expectAcceptable(what, request.method, answer)
  if (answer.status >= 400) {
    const after = await database.snapshot()
    expect(after, `a ${answer.status} changed what is stored: ${what}\n${answer.text.slice(0, 300)}`).toEqual(before)
    current = after
  } else {
    await afterSuccess(request, answer.text)
  }
}

/** Counterexamples print shortened: a 10 000-level body would otherwise fill the report. */
const printable = <A extends object>(arbitrary: fc.Arbitrary<A>) =>
  arbitrary.map((plan) => Object.defineProperty({ ...plan }, fc.toStringMethod, { value: () => shown(plan), enumerable: false }) as A)

const fuzz = (plans: (fixtures: Fixtures) => fc.Arbitrary<Plan>, numRuns: number) =>
  fc.assert(fc.asyncProperty(printable(plans(fixtures)), async (plan) => exchange(shown(plan), encodePlan(plan))), { numRuns })

const fuzzWire = (plans: (fixtures: Fixtures) => fc.Arbitrary<WirePlan>, numRuns: number) =>
  fc.assert(fc.asyncProperty(printable(plans(fixtures)), async (plan) => exchange(shown(plan), encodeWire(plan))), { numRuns })

describe("hostile input on PostgreSQL: never 5xx, 4xx in the error shape, a 4xx changes nothing", () => {
  it("bodies on every write route: near-valid records with fields mutated, random JSON, deep, wide, oversized, invalid UTF-8", async () => {
    await fuzz(bodyPlans, 150)
  }, 180_000)

  it("query strings on every route: filter, sort, search, cursor, limit, expand and each list's own parameters", async () => {
    await fuzz(queryPlans, 200)
  }, 180_000)

  it("path ids: real, another workspace's, of the wrong type, invented and garbage", async () => {
    await fuzz(idPlans, 120)
  }, 180_000)

  it("headers: Authorization, Content-Type, If-Match, Idempotency-Key, X-Request-Id and others with garbage, odd methods", async () => {
    await fuzz(headerPlans, 120)
  }, 180_000)

  it("bytes on the wire: raw invalid UTF-8 and control characters in the target and headers, broken framing, oversized heads", async () => {
    await fuzzWire(wirePlans, 100)
  }, 180_000)

  it("everything at once, unknown paths and methods included", async () => {
    await fuzz(anyPlans, 120)
  }, 180_000)
})
