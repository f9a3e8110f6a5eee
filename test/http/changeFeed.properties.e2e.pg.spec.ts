import { Effect, Exit, Scope } from "effect"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FEED_PATIENCE, FEED_WAIT_SECONDS } from "../support/feedPolling.js"
import { testDatabase } from "../support/pg.js"
import { type Host, KEY_A, KEY_B, startHost, STORAGES } from "./client.js"

/**
 * The change feed's promise through the API (issue 17): two hosts on one database (on memory, one
 * host: its storage is the process's), writers creating contacts and patching them through either
 * host at once, a consumer following GET /v1/events on either host with random page sizes and
 * waits while they write. At the end it has seen every write's event exactly once, each contact's
 * in the order they were made, and nothing of the other workspace, whose writers run meanwhile.
 */

interface Scenario {
  /** Per writer: how many patches follow its contact's creation. */
  readonly writers: ReadonlyArray<number>
  readonly limits: ReadonlyArray<number>
  readonly waits: ReadonlyArray<0 | 1>
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  writers: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 2, maxLength: 6 }),
  limits: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
  waits: fc.array(fc.constantFrom<0 | 1>(0, 0, 1), { minLength: 1, maxLength: 8 })
})

let run = 0

const follow = async (hosts: ReadonlyArray<Host>, start: string, { limits, waits, writers }: Scenario) => {
  const tag = `${Date.now().toString(36)}${run++}`
  const write = async (host: Host, key: string, method: string, path: string, body: unknown) => {
    const answer = await host.call(method, path, { key, body })
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
    return answer.body
  }
  // Each writer makes one contact and patches its title 1, 2, …; every third writes to workspace B.
  const made = new Map<string, number>()
  let done = false
  const writing = Promise.all(
    writers.map(async (patches, w) => {
      const key = w % 3 === 2 ? KEY_B : KEY_A
      const contact = await write(hosts[w % hosts.length]!, key, "POST", "/v1/contacts", {
        email: `feed.${tag}.${w}@example.com`,
        title: "0"
      })
      for (let i = 1; i <= patches; i++)
        await write(hosts[(w + i) % hosts.length]!, key, "PATCH", `/v1/contacts/${contact.id}`, { title: String(i) })
      if (key === KEY_A) made.set(contact.id, patches)
    })
  ).finally(() => {
    done = true
  })

  const seen: Array<Record<string, any>> = []
  const consuming = (async () => {
    let cursor = start
    // Once the writers are done: reads in a row that brought nothing.
    let idle = 0
    for (let i = 0; ; i++) {
      const limit = limits[i % limits.length]!
      // While they write, the scenario's waits; then each read waits for what is still to come: an
      // event the feed holds back (other tests' transactions on this server count) comes later.
      const wait = done ? FEED_WAIT_SECONDS : waits[i % waits.length]
      const page = await hosts[i % hosts.length]!.call("GET", `/v1/events?after=${cursor}&limit=${limit}&wait=${wait}`)
      if (page.status !== 200) throw new Error(`GET /v1/events: ${page.status} ${page.text}`)
      seen.push(...page.body.data)
      cursor = page.body.next_cursor
      if (!done) continue
      const expected = [...made.values()].reduce((sum, patches) => sum + 1 + patches, 0)
      if (seen.length >= expected) return cursor
      idle = page.body.data.length === 0 ? idle + 1 : 0
      if (idle >= FEED_PATIENCE) {
        throw new Error(
          `after the writers finished, ${idle} reads waiting ${FEED_WAIT_SECONDS} s each brought nothing: ` +
            `the feed gave ${seen.length} of the ${expected} events written`
        )
      }
    }
  })()
  await writing
  const end = await consuming

  const expected = [...made.values()].reduce((sum, patches) => sum + 1 + patches, 0)
  expect(seen.every((event) => event.workspace_id === "ws_a")).toBe(true)
  expect(new Set(seen.map((event) => event.id)).size).toBe(seen.length)
  expect(seen.length).toBe(expected)
  // Each contact's events as written: created with title 0, then each patch's title in turn.
  for (const [id, patches] of made) {
    const mine = seen.filter((event) => event.data.contact.id === id)
    expect(mine.map((event) => [event.type, event.data.contact.title])).toEqual(
      Array.from({ length: patches + 1 }, (_, i) => [i === 0 ? "contact.created" : "contact.updated", String(i)])
    )
  }
  return end
}

describe.each(STORAGES)("the change feed through the API while hosts write, on %s storage", (storage) => {
  const hosts: Array<Host> = []
  let database: Scope.Closeable | undefined

  // The consumer reads as fast as it can between waits: no rate limit may answer it instead.
  const unlimited = { rateLimit: 1_000_000, rateBurst: 1_000_000 }
  beforeAll(async () => {
    if (storage === "memory") {
      hosts.push(await startHost(unlimited))
      return
    }
    database = Effect.runSync(Scope.make())
    const url = await Effect.runPromise(Scope.provide(testDatabase, database))
    hosts.push(await startHost({ ...unlimited, storage: { postgres: url } }), await startHost({ ...unlimited, storage: { postgres: url } }))
  })
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()))
    if (database !== undefined) await Effect.runPromise(Scope.close(database, Exit.void))
  })

  it("hands every write's event to a consumer exactly once, each record's in order, none of another workspace", async () => {
    const first = await hosts[0]!.call("GET", "/v1/events?limit=1000")
    let cursor: string = first.body.next_cursor
    // A run whose reads are spent (about 40 s) fails; shrinking it must not outlast the test, or the
    // timeout would hide what failed.
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        cursor = await follow(hosts, cursor, s)
      }),
      { numRuns: storage === "memory" ? 10 : 6, plugins: [fc.interruptAfterTimeLimit(160_000, { failOnInterrupt: true })] }
    )
  }, 180_000)
})
