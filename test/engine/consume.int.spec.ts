import { createPromiseEngine, type PromiseEngine } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import * as fc from "fast-check"
import { afterEach, describe, expect, it } from "vitest"
import { apply, comparable, emptyModel, type FeedContactEvent, foldOf, type ReadModel } from "./consumeModel.js"
import { handlerSignals } from "./consumeWaits.js"

/**
 * engine.consume on memory storage (issue 29): two consumers of one name in one engine while
 * writers write; whichever holds the lease applies each event once, in feed order, and the read
 * model equals the fold of the log, across a stop of the active one at a random point. Its
 * at-least-once delivery with attempt numbers, its reset, and what it refuses.
 */

const ctx = { workspaceId: "acme", requestId: null, actor: "writer" }
const other = { ...ctx, workspaceId: "other" }

const engines: Array<PromiseEngine> = []
afterEach(async () => {
  await Promise.all(engines.splice(0).map((crm) => crm.dispose()))
})
const engine = async () => {
  const crm = await createPromiseEngine(MemoryStorage.layer)
  engines.push(crm)
  return crm
}

/** The workspace's whole change feed, read page by page. */
const logOf = async (crm: PromiseEngine, workspace = ctx): Promise<Array<FeedContactEvent>> => {
  const all: Array<FeedContactEvent> = []
  let after: string | undefined
  for (;;) {
    const page = await crm.events.list(workspace, { limit: "1000", ...(after === undefined ? {} : { after }) })
    if (page.data.length === 0) return all
    all.push(...(page.data as unknown as Array<FeedContactEvent>))
    after = page.next_cursor
  }
}

const write = (crm: PromiseEngine, writers: ReadonlyArray<number>, tag: string) =>
  Promise.all(
    writers.map(async (patches, w) => {
      const where = w % 3 === 2 ? other : ctx
      const made = await crm.contacts.create(where, { email: `c.${tag}.${w}@example.com`, title: "0" })
      for (let i = 1; i <= patches; i++) await crm.contacts.update(where, made.data["id"] as string, { title: String(i) }, null)
    })
  )

let run = 0

describe("engine.consume on memory storage", () => {
  it("applies every event once, in order per stream, across two consumers and a stop of the active one", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 2, maxLength: 5 }),
        fc.tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 7 })),
        fc.integer({ min: 0, max: 20 }),
        async (writers, [batchA, batchB], stopAfter) => {
          const crm = await engine()
          const name = `model-${run++}`
          const model: ReadModel = emptyModel()
          const signals = handlerSignals()
          const handler = async (event: unknown) => {
            apply(model, event as unknown as FeedContactEvent)
            signals.changed()
          }
          const options = { name, workspaceId: "acme", handler, leaseMillis: 300 }
          const a = await crm.consume({ ...options, batchSize: batchA, owner: "a" })
          const b = await crm.consume({ ...options, batchSize: batchB, owner: "b" })
          const writing = write(crm, writers, name)
          const ours = writers.reduce((sum, patches, w) => (w % 3 === 2 ? sum : sum + 1 + patches), 0)
          await signals.until(() => model.applied.length >= Math.min(stopAfter, ours), "the first events handled")
          // Stop whichever is active: the other takes the lease over where the stopped one's checkpoint is.
          const [first, second] = (await a.active()) ? [a, b] : [b, a]
          await first.stop()
          await writing
          const log = await logOf(crm)
          await signals.until(() => model.applied.length >= log.length, `${log.length} events handled`)
          expect(comparable(model)).toEqual(comparable(foldOf(log)))
          expect(model.applied).toEqual(log.map((event) => event.id))
          await second.stop()
        }
      ),
      { numRuns: 15, endOnFailure: true }
    )
  }, 60_000)

  it("delivers again after a handler fails, with the attempt number, then moves on", async () => {
    const crm = await engine()
    await write(crm, [2], "retry")
    const attempts: Array<[string, number]> = []
    const signals = handlerSignals()
    let failed = false
    const consumer = await crm.consume({
      name: "retry",
      workspaceId: "acme",
      handler: async (event, { attempt, transaction }) => {
        expect(transaction).toBeNull()
        attempts.push([(event as unknown as FeedContactEvent).id, attempt])
        signals.changed()
        if (!failed && attempts.length === 2) {
          failed = true
          throw new Error("planted failure")
        }
      }
    })
    const log = await logOf(crm)
    await signals.until(() => attempts.length >= log.length + 2, "the page delivered twice")
    await consumer.stop()
    const ids = log.map((event) => event.id)
    expect(attempts).toEqual([[ids[0], 1], [ids[1], 1], ...ids.map((id) => [id, 2])])
    expect(await crm.consumers.checkpoint({ name: "retry", workspaceId: "acme" })).toEqual({
      cursor: expect.any(String),
      attempts: 0
    })
  })

  it("rebuilds from the start, or from a position, after a reset", async () => {
    const crm = await engine()
    await write(crm, [3], "reset")
    const log = await logOf(crm)
    const model = emptyModel()
    const signals = handlerSignals()
    const consumer = await crm.consume({
      name: "rebuild",
      workspaceId: "acme",
      leaseMillis: 300,
      batchSize: 1,
      handler: async (event) => {
        apply(model, event as unknown as FeedContactEvent)
        signals.changed()
      }
    })
    await signals.until(() => model.applied.length === log.length, "the log handled")
    const second = (await crm.events.list(ctx, { limit: "2" })).next_cursor
    model.applied.length = 0
    model.titles.clear()
    await crm.consumers.reset({ name: "rebuild", workspaceId: "acme", from: null })
    await signals.until(() => model.applied.length === log.length, "the log handled again")
    expect(comparable(model)).toEqual(comparable(foldOf(log)))
    await crm.consumers.reset({ name: "rebuild", workspaceId: "acme", from: second })
    await signals.until(() => model.applied.length === 2 * log.length - 2, "the log handled from its third event")
    expect(model.applied.slice(log.length)).toEqual(log.slice(2).map((event) => event.id))
    await consumer.stop()
  })

  it("starts from `from`, keeps to the types asked, and refuses a cursor of another workspace", async () => {
    const crm = await engine()
    await write(crm, [2], "from")
    const log = await logOf(crm)
    const first = (await crm.events.list(ctx, { limit: "1" })).next_cursor
    const seen: Array<string> = []
    const signals = handlerSignals()
    const consumer = await crm.consume({
      name: "from",
      workspaceId: "acme",
      from: first,
      types: ["contact.updated"],
      handler: async (event) => {
        seen.push((event as unknown as FeedContactEvent).id)
        signals.changed()
      }
    })
    await signals.until(() => seen.length === 2, "the two updates")
    expect(seen).toEqual(log.slice(1).map((event) => event.id))
    await consumer.stop()
    const elsewhere = (await crm.events.list(other, { limit: "1" })).next_cursor
    const refused = await crm.consume({ name: "x", workspaceId: "acme", from: elsewhere, handler: async () => {} }).then(
      () => null,
      (error: { _tag: string }) => error._tag
    )
    expect(refused).toBe("ValidationError")
  })
})
