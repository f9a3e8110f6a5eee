import { Effect, Exit, Scope } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, KEY_A, KEY_B, type StorageKind, STORAGES, startHost } from "../http/client.js"
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
 * Hostile input against the running host. Property: whatever arrives, the answer is never 5xx and
 * every 4xx has API.md's error body. On PostgreSQL also: a 4xx leaves the database as it was (the
 * log's length and head, every stream version, every document), read with SQL. Before a snapshot
 * the suite waits until no delivery is pending, so the delivery worker cannot write between two.
 * The memory variant checks answers only (its state is not reachable from outside the host) and
 * runs fewer requests: the storages differ in what they refuse, not in the HTTP edge.
 *
 * Setup uses both workspaces before the properties. A workspace is initialised (its default
 * pipeline) only by an accepted request that needs it, never by a refused one: the last property
 * sends random requests as the first request of workspaces nothing has touched yet.
 */

const shown = (plan: unknown) => {
  const text = JSON.stringify(plan, (_, value) =>
    typeof value === "string" && value.length > 300 ? `${value.slice(0, 300)}…(${value.length})` : value
  )
  return text.length > 3000 ? `${text.slice(0, 3000)}…` : text
}

/** Counterexamples print shortened: a 10 000-level body would otherwise fill the report. */
const printable = <A extends object>(arbitrary: fc.Arbitrary<A>) =>
  arbitrary.map((plan) => Object.defineProperty({ ...plan }, fc.toStringMethod, { value: () => shown(plan), enumerable: false }) as A)

const RUNS: Readonly<Record<StorageKind, Readonly<Record<string, number>>>> = {
  postgres: { bodies: 250, queries: 300, ids: 200, headers: 200, wire: 150, any: 250, first: 150 },
  memory: { bodies: 100, queries: 100, ids: 60, headers: 60, wire: 60, any: 100, first: 60 }
}

/** Keys of workspaces no request has used yet, one per run of the first-request property (shrinking included). */
const FRESH_KEYS = Array.from({ length: 1500 }, (_, i) => `key_fresh_${String(i).padStart(4, "0")}_0123456789`)
const FRESH_KEY_SLOT = "key_fresh_slot_0123456789"

describe.each(STORAGES)(
  "hostile input on %s storage: never 5xx, every 4xx in the error shape (on PostgreSQL: and changing nothing)",
  (storage) => {
    let host: Host
    let receiver: Receiver
    let database: Database | null = null
    let fixtures: Fixtures
    const databaseScope = Effect.runSync(Scope.make())

    beforeAll(async () => {
      const url = storage === "postgres" ? await Effect.runPromise(Scope.provide(testDatabase, databaseScope)) : null
      receiver = await startReceiver()
      host = await startHost({
        storage: url === null ? "memory" : { postgres: url },
        apiKeys: [`ws_a:${KEY_A}`, `ws_b:${KEY_B}`, ...FRESH_KEYS.map((key, i) => `ws_fresh_${i}:${key}`)].join(","),
        rateLimit: 1_000_000,
        rateBurst: 1_000_000,
        webhooks: { allowInsecure: true, retrySchedule: [20, 20], timeoutMillis: 2_000 }
      })
      database = url === null ? null : await openDatabase(url)
      fixtures = await seedFixtures(host, database, { own: KEY_A, other: KEY_B }, receiver.url)
    })

    afterAll(async () => {
      await host?.close()
      await receiver?.close()
      await database?.close()
      await Effect.runPromise(Scope.close(databaseScope, Exit.void))
    })

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
     * The state before the next request: the snapshot taken after the last 4xx, which changed
     * nothing, or (after a 2xx, which may have scheduled deliveries) a new one once none is pending.
     */
    let current: Snapshot | null = null

    const snapshotBefore = async (db: Database) => current ?? (await settle(db).then(() => db.snapshot()))

    const exchange = async (what: string, request: RawRequest) => {
      const before = database === null ? null : await snapshotBefore(database)
      current = null
      const answer = await sendRaw(host.url, encodeRequest(request))
      expectAcceptable(what, request.method, answer)
      if (answer.status >= 400) {
        if (database === null) return
        const after = await database.snapshot()
        expect(after, `a ${answer.status} changed what is stored: ${what}\n${answer.text.slice(0, 300)}`).toEqual(before)
        current = after
      } else {
        await afterSuccess(request, answer.text)
      }
    }

    const fuzz = (plans: (fixtures: Fixtures) => fc.Arbitrary<Plan>, numRuns: number) =>
      fc.assert(
        fc.asyncProperty(printable(plans(fixtures)), async (plan) => exchange(shown(plan), encodePlan(plan))),
        { numRuns }
      )

    const fuzzWire = (plans: (fixtures: Fixtures) => fc.Arbitrary<WirePlan>, numRuns: number) =>
      fc.assert(
        fc.asyncProperty(printable(plans(fixtures)), async (plan) => exchange(shown(plan), encodeWire(plan))),
        { numRuns }
      )

    const runs = RUNS[storage]

    it("bodies on every write route: near-valid records with fields mutated, random JSON, deep, wide, oversized, invalid UTF-8", async () => {
      await fuzz(bodyPlans, runs["bodies"]!)
    }, 180_000)

    it("query strings on every route: filter, sort, search, cursor, limit, expand and each list's own parameters", async () => {
      await fuzz(queryPlans, runs["queries"]!)
    }, 180_000)

    it("path ids: real, another workspace's, of the wrong type, invented and garbage", async () => {
      await fuzz(idPlans, runs["ids"]!)
    }, 180_000)

    it("headers: Authorization, Content-Type, If-Match, Idempotency-Key, X-Request-Id and others with garbage, odd methods", async () => {
      await fuzz(headerPlans, runs["headers"]!)
    }, 180_000)

    it("bytes on the wire: raw invalid UTF-8 and control characters in the target and headers, broken framing, oversized heads", async () => {
      await fuzzWire(wirePlans, runs["wire"]!)
    }, 180_000)

    it("everything at once, unknown paths and methods included", async () => {
      await fuzz(anyPlans, runs["any"]!)
    }, 180_000)

    it("the first request of a workspace: refused, it leaves the workspace uninitialised (no default pipeline, nothing stored)", async () => {
      let next = 0
      const asFirst = (plan: Plan): RawRequest => {
        const key = FRESH_KEYS[next++]
        if (key === undefined) throw new Error("out of fresh workspaces: raise FRESH_KEYS")
        const request = encodePlan(plan)
        const headers = request.headers.map(
          ([name, value]) => [name, typeof value === "string" ? value.split(FRESH_KEY_SLOT).join(key) : value] as const
        )
        return { ...request, headers }
      }
      await fc.assert(
        fc.asyncProperty(printable(anyPlans({ ...fixtures, ownKey: FRESH_KEY_SLOT })), async (plan) =>
          exchange(shown(plan), asFirst(plan))
        ),
        { numRuns: runs["first"]! }
      )
    }, 180_000)
  }
)
