import { createPromiseEngine, type PromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openSql, type Sql } from "../support/consistency.js"
import { testDatabase } from "../support/pg.js"
import { handlerSignals } from "./consumeWaits.js"

/**
 * A consumer's lease, attempts and transaction on PostgreSQL, with two engines on one database
 * (two processes' worth): a stop hands the lease over at once, long before it would expire; a
 * handler that fails leaves none of its transaction's writes and is delivered the page again with
 * the next attempt number; a reset makes the holder rebuild from where it says.
 */

const ctx = { workspaceId: "ws_lease", requestId: null, actor: "writer" }
let database: Scope.Closeable
let sql: Sql
const engines: Array<PromiseEngine> = []

beforeAll(async () => {
  database = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.provide(testDatabase, database))
  for (let i = 0; i < 2; i++) engines.push(await createPromiseEngine(PgStorage.layer({ url, maxConnections: 3 })))
  sql = await openSql(url)
  await sql.query("CREATE TABLE lease_rows (consumer text NOT NULL, event_id text NOT NULL, attempt integer NOT NULL)")
  const made = await engines[0]!.contacts.create(ctx, { email: "lease@example.com", title: "0" })
  await engines[1]!.contacts.update(ctx, made.data["id"] as string, { title: "1" }, null)
}, 60_000)

afterAll(async () => {
  await Promise.all(engines.map((crm) => crm.dispose()))
  await sql?.close()
  await Effect.runPromise(Scope.close(database, Exit.void))
}, 60_000)

const rowsOf = (consumer: string) =>
  sql.query<{ event_id: string; attempt: number }>(
    "SELECT event_id, attempt FROM lease_rows WHERE consumer = $1 ORDER BY event_id, attempt",
    [consumer]
  )

/** Polls the stored checkpoint until it is `cursor`: a commit is seen only in the database. */
const storedThrough = async (name: string, cursor: string) => {
  const deadline = Date.now() + 20_000
  while ((await engines[0]!.consumers.checkpoint({ name, workspaceId: ctx.workspaceId }))?.cursor !== cursor) {
    if (Date.now() > deadline) throw new Error(`checkpoint of ${name} not stored within 20 s`)
    await new Promise((wake) => setTimeout(wake, 10))
  }
}

const logIds = async () => (await engines[0]!.events.list(ctx, { limit: "1000" })).data.map((event) => event["id"] as string)

describe("engine.consume on PostgreSQL, two engines on one database", () => {
  it("hands the lease over when its holder stops, without waiting for it to expire", async () => {
    const signals = handlerSignals()
    const handledBy: Array<number> = []
    const start = (i: number) =>
      engines[i]!.consume({
        name: "handover",
        workspaceId: ctx.workspaceId,
        leaseMillis: 600_000,
        handler: async () => {
          handledBy.push(i)
          signals.changed()
        }
      })
    const first = await start(0)
    await signals.until(() => handledBy.length === 2, "the log handled")
    const second = await start(1)
    expect([await first.active(), await second.active()]).toEqual([true, false])
    await first.stop()
    await engines[0]!.contacts.create(ctx, { email: "after.stop@example.com" })
    await signals.until(() => handledBy.length === 3, "the next event handled")
    expect(handledBy).toEqual([0, 0, 1])
    expect(await second.active()).toBe(true)
    await second.stop()
  })

  it("rolls a failed handler's writes back and delivers the page again with the next attempt", async () => {
    const signals = handlerSignals()
    let calls = 0
    const consumer = await engines[1]!.consume({
      name: "retried",
      workspaceId: ctx.workspaceId,
      handler: async (event, { attempt, transaction }) => {
        await transaction!.execute("INSERT INTO lease_rows VALUES ('retried', $1, $2)", [event["id"], attempt])
        calls++
        signals.changed()
        if (attempt === 1 && calls === 2) throw new Error("planted failure")
      }
    })
    const ids = await logIds()
    await signals.until(() => calls === 2 + ids.length, "the page delivered twice")
    // A stop rolls back a page not yet committed: wait for its checkpoint first.
    const through = (await engines[0]!.events.list(ctx, { limit: "1000" })).next_cursor
    await storedThrough("retried", through)
    await consumer.stop()
    expect(await rowsOf("retried")).toEqual(
      ids.map((id) => ({ event_id: id, attempt: 2 })).sort((a, b) => (a.event_id < b.event_id ? -1 : 1))
    )
    expect(await engines[0]!.consumers.checkpoint({ name: "retried", workspaceId: ctx.workspaceId })).toEqual({
      cursor: through,
      attempts: 0
    })
  })

  it("rebuilds from the start after a reset, the holder reading the new checkpoint", async () => {
    const signals = handlerSignals()
    const seen: Array<string> = []
    const consumer = await engines[0]!.consume({
      name: "reset",
      workspaceId: ctx.workspaceId,
      leaseMillis: 600_000,
      handler: async (event) => {
        seen.push(event["id"] as string)
        signals.changed()
      }
    })
    const ids = await logIds()
    await signals.until(() => seen.length === ids.length, "the log handled")
    await engines[1]!.consumers.reset({ name: "reset", workspaceId: ctx.workspaceId, from: null })
    await signals.until(() => seen.length === 2 * ids.length, "the log handled again")
    expect(seen).toEqual([...ids, ...ids])
    await consumer.stop()
  })
})
