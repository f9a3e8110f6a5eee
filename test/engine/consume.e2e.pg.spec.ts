import { type ChildProcess, spawn } from "node:child_process"
import { resolve } from "node:path"
import { Effect, Exit, Scope } from "effect"
import * as fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openSql, type Sql } from "../support/consistency.js"
import { testDatabase } from "../support/pg.js"
import { type Host, startHost } from "../http/client.js"
import { comparable, type FeedContactEvent, foldOf, type ReadModel } from "./consumeModel.js"

/**
 * Consumers on PostgreSQL exactly once (issue 29, item 3): writers on two hosts, two consumer
 * processes of one name (the built packages, `npx tsc -b` first), and SIGKILL of the active one at
 * random points, a new process started in its place each time. The read model, a row per event
 * the handler wrote in the transaction that stores the checkpoint, must equal the fold of the
 * change feed: every event applied once, in feed order. The planted bug (the handler writes on a
 * connection of its own, committed before the checkpoint) must make the same property fail.
 */

const CHILD = resolve(import.meta.dirname, "consumerProcess.ts")
const LEASE_MILLIS = 1_000
/** How long the test waits for a condition the consumers must bring about (a takeover included). */
const PATIENCE_MILLIS = 30_000

let url = ""
let sql: Sql
/** The test's side of the handlers' gate, on a connection of its own (it blocks). */
let gate: Sql
let database: Scope.Closeable
const hosts: Array<Host> = []
const children = new Set<ChildProcess>()

beforeAll(async () => {
  database = Effect.runSync(Scope.make())
  url = await Effect.runPromise(Scope.provide(testDatabase, database))
  hosts.push(await startHost({ storage: { postgres: url } }), await startHost({ storage: { postgres: url } }))
  sql = await openSql(url)
  gate = await openSql(url)
  await sql.query(
    `CREATE TABLE consumed_events (
      applied bigserial PRIMARY KEY, consumer text NOT NULL, event_id text NOT NULL, contact_id text NOT NULL, title text NOT NULL
    )`
  )
  await sql.query("CREATE TABLE kill_points (consumer text NOT NULL, at bigint NOT NULL)")
}, 60_000)

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL")
  await Promise.all(hosts.map((host) => host.close()))
  await sql?.close()
  await gate?.close()
  await Effect.runPromise(Scope.close(database, Exit.void))
}, 60_000)

/** A consumer process, resolved once it consumes. */
const startConsumer = (name: string, mode: "inside" | "outside", batch: number): Promise<ChildProcess> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [CHILD, url, name, mode, String(batch), String(LEASE_MILLIS)], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    children.add(child)
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    child.stdout!.on("data", (chunk) => String(chunk).includes("consuming") && done(child))
    child.on("exit", (code, signal) => {
      children.delete(child)
      if (signal === null) fail(new Error(`consumer process exited ${code}: ${stderr}`))
    })
  })

/** Polls the database until `check` holds: what the consumers do is seen only there. */
const until = async <A>(read: () => Promise<A>, check: (value: A) => boolean, what: string): Promise<A> => {
  const deadline = Date.now() + PATIENCE_MILLIS
  for (;;) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`not seen within ${PATIENCE_MILLIS} ms: ${what}`)
    await new Promise((wake) => setTimeout(wake, 5))
  }
}

const appliedCount = async (name: string) =>
  Number((await sql.query<{ n: string }>("SELECT count(*) AS n FROM consumed_events WHERE consumer = $1", [name]))[0]!.n)

/** The process holding the lease now, by the pid its owner names. */
const holder = async (name: string): Promise<number | null> => {
  const rows = await sql.query<{ owner: string | null }>(
    "SELECT lease_owner AS owner FROM ds_consumers WHERE workspace_id = 'ws_a' AND name = $1 AND lease_until > now()",
    [name]
  )
  const owner = rows[0]?.owner
  return owner == null ? null : Number(/^pid(\d+):/.exec(owner)![1])
}

/** Whether a handler of `name` waits at the closed gate (pg_locks names a bigint key by its two halves). */
const heldAtGate = async (name: string) =>
  (
    await sql.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
        AND objid = (hashtext($1)::bigint & 4294967295)::oid AND classid = ((hashtext($1)::bigint >> 32) & 4294967295)::oid`,
      [name]
    )
  ).length > 0

const logOf = async (): Promise<Array<FeedContactEvent>> => {
  const all: Array<FeedContactEvent> = []
  let after = ""
  for (;;) {
    const page = await hosts[0]!.call("GET", `/v1/events?limit=1000${after === "" ? "" : `&after=${after}`}`)
    if (page.status !== 200) throw new Error(`GET /v1/events: ${page.status}`)
    if (page.body.data.length === 0) return all
    all.push(...page.body.data)
    after = page.body.next_cursor
  }
}

const modelOf = async (name: string): Promise<ReadModel> => {
  const rows = await sql.query<{ event_id: string; contact_id: string; title: string }>(
    "SELECT event_id, contact_id, title FROM consumed_events WHERE consumer = $1 ORDER BY applied",
    [name]
  )
  const titles = new Map<string, Array<string>>()
  for (const row of rows) titles.set(row.contact_id, [...(titles.get(row.contact_id) ?? []), row.title])
  return { titles, applied: rows.map((row) => row.event_id) }
}

const write = (writers: ReadonlyArray<number>, tag: string) =>
  Promise.all(
    writers.map(async (patches, w) => {
      const call = async (host: Host, method: string, path: string, body: unknown) => {
        const answer = await host.call(method, path, { body })
        if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
        return answer.body
      }
      const contact = await call(hosts[w % 2]!, "POST", "/v1/contacts", { email: `c.${tag}.${w}@example.com`, title: "0" })
      for (let i = 1; i <= patches; i++) await call(hosts[(w + i) % 2]!, "PATCH", `/v1/contacts/${contact.id}`, { title: String(i) })
    })
  )

let run = 0

/** One run: a backlog written, two consumers, more writes while the active one is killed at each point. */
const scenario = (mode: "inside" | "outside") =>
  fc.asyncProperty(
    fc.array(fc.integer({ min: 4, max: 12 }), { minLength: 2, maxLength: 4 }),
    fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 2 }),
    fc.integer({ min: 8, max: 30 }),
    async (writers, kills, batch) => {
      const name = `${mode}-${run++}`
      // A new name starts at the oldest event: earlier runs' events are in its log too.
      await write(writers, `${name}.backlog`)
      // Kills land in the backlog: the holder stops at each point after writing a row of its page
      // (consumerProcess.ts), while the test holds the gate, and is killed there.
      const backlog = (await logOf()).length
      const points = [...new Set(kills.map((kill) => Math.min(kill, backlog)))].sort((a, b) => a - b)
      for (const at of points) await sql.query("INSERT INTO kill_points VALUES ($1, $2)", [name, at])
      await gate.query("SELECT pg_advisory_lock(hashtext($1))", [name])
      const running = await Promise.all([startConsumer(name, mode, batch), startConsumer(name, mode, batch)])
      const writing = write(writers, `${name}.more`)
      for (const at of points) {
        await until(
          () => heldAtGate(name),
          (held) => held,
          `a handler at the gate after ${at} rows`
        )
        const pid = await until(
          () => holder(name),
          (owner) => running.some((child) => child.pid === owner),
          "a live holder"
        )
        const active = running.find((child) => child.pid === pid)!
        active.kill("SIGKILL")
        await sql.query("DELETE FROM kill_points WHERE consumer = $1 AND at = $2", [name, at])
        // The killed process's session waits at the gate until it opens, then finds its client gone.
        await gate.query("SELECT pg_advisory_unlock(hashtext($1))", [name])
        await gate.query("SELECT pg_advisory_lock(hashtext($1))", [name])
        running.splice(running.indexOf(active), 1, await startConsumer(name, mode, batch))
      }
      await gate.query("SELECT pg_advisory_unlock(hashtext($1))", [name])
      await writing
      const log = await logOf()
      await until(
        () => appliedCount(name),
        (n) => n >= log.length,
        `${log.length} events applied`
      )
      const model = await modelOf(name)
      for (const child of running) child.kill("SIGKILL")
      expect(comparable(model)).toEqual(comparable(foldOf(log)))
      expect(model.applied).toEqual(log.map((event) => event.id))
    }
  )

describe("engine.consume on PostgreSQL, consumer processes SIGKILLed", () => {
  it("applies every event once, in feed order, whoever holds the lease", async () => {
    await fc.assert(scenario("inside"), { numRuns: 3, endOnFailure: true })
  }, 120_000)

  it("fails when the handler's writes commit apart from the checkpoint (planted bug)", async () => {
    // It must fail on the read model's check (an event applied twice), not on a test's own patience.
    const failure = await fc.assert(scenario("outside"), { numRuns: 3, endOnFailure: true }).then(
      () => null,
      (error: Error) => String((error.cause as Error | undefined)?.message)
    )
    expect(failure).toMatch(/^expected /)
    expect(failure).not.toMatch(/not seen within/)
  }, 120_000)
})
