import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Stream } from "effect"
import type { Projected } from "../decider.js"
import { projectDelivery } from "../delivery/projection.js"
import type { DocumentQuery } from "../query/ast.js"
import { DeliveryQueue, type DeliveryQueueService, type QueueSignal } from "../storage/DeliveryQueue.js"
import type { DocumentUpsert, StoredDocument } from "../storage/documents.js"
import { Storage, type StorageService } from "../storage/Storage.js"
import { event } from "./storageFixtures.js"

/**
 * A second host on the same storage: its own pool and listener on the same database for
 * PostgreSQL; for storage that lives in one process, the same services again (`sameHost`).
 */
export class OtherHost extends Context.Service<
  OtherHost,
  {
    readonly storage: StorageService
    readonly queue: DeliveryQueueService
  }
>()("@dealstream/core/testing/OtherHost") {}

/** OtherHost for an adapter whose one instance is all there is (memory). */
export const sameHost: Layer.Layer<OtherHost, never, Storage | DeliveryQueue> = Layer.effect(
  OtherHost,
  Effect.all({ storage: Storage, queue: DeliveryQueue })
)

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
/** An instant `seconds` after T0. */
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString()

const scheduled = (
  id: string,
  webhookId: string,
  when: string,
  event: { readonly streamId?: string; readonly version?: number; readonly sequence?: number } = {}
): Projected =>
  projectDelivery(null, {
    type: "delivery.scheduled",
    data: {
      id,
      webhook_id: webhookId,
      event_id: `evt_${id}`,
      event_type: "contact.created",
      event_stream_id: event.streamId ?? `con_${id}`,
      event_version: event.version ?? 1,
      event_created_at: when,
      payload_data: { contact: { id: `con_${id}` } },
      replay_of: null,
      ...(event.sequence === undefined ? {} : { sequence: event.sequence }),
      at: when
    }
  })!

const retried = (doc: Projected, when: string, next: string): Projected =>
  projectDelivery(doc, {
    type: "delivery.attempted",
    data: {
      attempt: { attempted_at: when, status_code: 503, duration_ms: 12, error: null },
      result: "retrying",
      failure: null,
      next_attempt_at: next,
      at: when
    }
  })!

const succeeded = (doc: Projected, when: string): Projected =>
  projectDelivery(doc, {
    type: "delivery.attempted",
    data: {
      attempt: { attempted_at: when, status_code: 200, duration_ms: 12, error: null },
      result: "succeeded",
      failure: null,
      next_attempt_at: null,
      at: when
    }
  })!

const cancelled = (doc: Projected, when: string): Projected => projectDelivery(doc, { type: "delivery.cancelled", data: { at: when } })!

const write = (workspaceId: string, id: string, doc: Projected, version = 1): DocumentUpsert => ({
  _tag: "Upsert",
  collection: "delivery",
  workspaceId,
  id,
  version,
  deletedAt: doc.deletedAt,
  uniqueKey: null,
  searchWords: [],
  data: doc.data
})

let counter = 0
const fresh = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`

const ids = (documents: ReadonlyArray<StoredDocument>) => documents.map((d) => d.id)
const lease = (owner: string, now: number, seconds = 30) => ({ now: at(now), owner, leaseUntil: at(now + seconds) })

/** Commits deliveries (one commit, no events: the queue reads documents only). */
const put = (...writes: ReadonlyArray<DocumentUpsert>) =>
  Effect.flatMap(Storage, (storage) => storage.commit({ streams: [], documents: writes }))

/**
 * The delivery queue every storage adapter must provide. `layer` gives a fresh, empty storage for
 * each test (claims see every workspace, so tests may not share one) with its DeliveryQueue and an
 * OtherHost on the same storage.
 */
export const deliveryQueueContractSuite = (name: string, layer: Layer.Layer<Storage | DeliveryQueue | OtherHost, unknown>) => {
  const test = <A, E>(title: string, body: Effect.Effect<A, E, Storage | DeliveryQueue | OtherHost>) =>
    it.live(title, () => Effect.provide(body, layer), { timeout: 60_000 })

  describe(`delivery queue contract: ${name}`, () => {
    test(
      "claims only due, pending, unleased deliveries of every workspace, earliest due first, at most limit",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        const [ws1, ws2] = [fresh("ws"), fresh("ws")]
        const wh = fresh("wh")
        const d = (n: number) => `dlv_${n}`
        yield* put(
          write(ws1, d(1), scheduled(d(1), wh, at(-3))),
          write(ws2, d(2), scheduled(d(2), wh, at(-2))),
          write(ws1, d(3), scheduled(d(3), wh, at(0))), // due at exactly `now`
          write(ws1, d(4), scheduled(d(4), wh, at(1))), // not yet due
          write(ws2, d(5), retried(scheduled(d(5), wh, at(-60)), at(-50), at(-1)), 2),
          write(ws1, d(6), retried(scheduled(d(6), wh, at(-60)), at(-50), at(3600)), 2),
          write(ws1, d(7), succeeded(scheduled(d(7), wh, at(-9)), at(-8)), 2),
          write(ws2, d(8), cancelled(scheduled(d(8), wh, at(-9)), at(-8)), 2)
        )
        const first = yield* queue.claim({ ...lease("a", 0), limit: 2 })
        expect(ids(first)).toEqual([d(1), d(2)])
        expect(first[1]).toMatchObject({ collection: "delivery", workspaceId: ws2, id: d(2), version: 1, deletedAt: null })
        expect(first[1]!.data).toMatchObject({ id: d(2), webhook_id: wh, status: "pending", next_attempt_at: at(-2) })
        // the leased ones are skipped; a retry whose time has come is due like a new delivery
        expect(ids(yield* queue.claim({ ...lease("b", 0), limit: 10 }))).toEqual([d(5), d(3)])
        expect(yield* queue.claim({ ...lease("c", 0), limit: 10 })).toEqual([])
        expect(ids(yield* queue.claim({ ...lease("c", 1), limit: 10 }))).toEqual([d(4)])
        expect(yield* queue.claim({ ...lease("c", 1), limit: 0 })).toEqual([])
      })
    )

    test(
      "keeps a claimed delivery from other claimers until its lease ends",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        const other = (yield* OtherHost).queue
        const ws = fresh("ws")
        yield* put(write(ws, "dlv_1", scheduled("dlv_1", fresh("wh"), at(0))))
        expect(ids(yield* queue.claim({ ...lease("a", 0, 30), limit: 5 }))).toEqual(["dlv_1"])
        expect(yield* other.claim({ ...lease("b", 10), limit: 5 })).toEqual([])
        expect(yield* queue.claim({ ...lease("a", 29), limit: 5 })).toEqual([])
        // at-least-once: after the lease, the delivery goes to whoever claims next
        expect(ids(yield* other.claim({ ...lease("b", 31), limit: 5 }))).toEqual(["dlv_1"])
        expect(yield* queue.claim({ ...lease("a", 40), limit: 5 })).toEqual([])
      })
    )

    test(
      "clears the lease when a commit upserts the delivery",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        const ws = fresh("ws")
        const wh = fresh("wh")
        const first = scheduled("dlv_1", wh, at(0))
        yield* put(write(ws, "dlv_1", first), write(ws, "dlv_2", scheduled("dlv_2", wh, at(1))))
        expect(ids(yield* queue.claim({ ...lease("a", 5, 3600), limit: 5 }))).toEqual(["dlv_1", "dlv_2"])
        // an attempt recorded with its retry due already: claimable again at once
        yield* put(write(ws, "dlv_1", retried(first, at(5), at(6)), 2))
        // the same data written again still ends the claim
        yield* put(write(ws, "dlv_2", scheduled("dlv_2", wh, at(1)), 1))
        expect(ids(yield* queue.claim({ ...lease("b", 6, 3600), limit: 5 }))).toEqual(["dlv_2", "dlv_1"])
        // a retry scheduled later is claimable then, not before
        yield* put(write(ws, "dlv_1", retried(retried(first, at(5), at(6)), at(7), at(100)), 3))
        expect(yield* queue.claim({ ...lease("c", 99), limit: 5 })).toEqual([])
        expect(ids(yield* queue.claim({ ...lease("c", 100), limit: 5 }))).toEqual(["dlv_1"])
      })
    )

    test(
      "makes a cancelled or finished delivery unclaimable, leased or not",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        const ws = fresh("ws")
        const wh = fresh("wh")
        const [a, b, c] = [scheduled("dlv_a", wh, at(0)), scheduled("dlv_b", wh, at(1)), scheduled("dlv_c", wh, at(2))]
        yield* put(write(ws, "dlv_a", a), write(ws, "dlv_b", b), write(ws, "dlv_c", c))
        expect(ids(yield* queue.claim({ ...lease("a", 1), limit: 1 }))).toEqual(["dlv_a"])
        // as DELETE /v1/webhooks/:id does: every queued delivery cancelled in one commit
        yield* put(
          write(ws, "dlv_a", cancelled(a, at(2)), 2),
          write(ws, "dlv_b", cancelled(b, at(2)), 2),
          write(ws, "dlv_c", succeeded(c, at(2)), 2)
        )
        expect(yield* queue.claim({ ...lease("b", 1000), limit: 10 })).toEqual([])
        expect(yield* queue.nextDue).toBeNull()
        const storage = yield* Storage
        expect((yield* storage.getDocument("delivery", ws, "dlv_a"))?.data["status"]).toBe("cancelled")
      })
    )

    test(
      "gives back the leases of one owner on release",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        const other = (yield* OtherHost).queue
        const ws = fresh("ws")
        const wh = fresh("wh")
        yield* put(...[1, 2, 3, 4].map((n) => write(ws, `dlv_${n}`, scheduled(`dlv_${n}`, wh, at(n)))))
        expect(ids(yield* queue.claim({ ...lease("a", 10, 3600), limit: 2 }))).toEqual(["dlv_1", "dlv_2"])
        expect(ids(yield* other.claim({ ...lease("b", 10, 3600), limit: 1 }))).toEqual(["dlv_3"])
        yield* other.release("a")
        yield* queue.release("nobody")
        expect(ids(yield* queue.claim({ ...lease("c", 10), limit: 10 }))).toEqual(["dlv_1", "dlv_2", "dlv_4"])
      })
    )

    test(
      "reports when the next pending delivery becomes claimable: its due time, or its lease's end",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        expect(yield* queue.nextDue).toBeNull()
        const ws = fresh("ws")
        const wh = fresh("wh")
        yield* put(
          write(ws, "dlv_old", succeeded(scheduled("dlv_old", wh, at(-100)), at(-99)), 2),
          write(ws, "dlv_1", scheduled("dlv_1", wh, at(50))),
          write(fresh("ws"), "dlv_2", retried(scheduled("dlv_2", wh, at(-10)), at(-9), at(20)), 2)
        )
        expect(yield* queue.nextDue).toBe(at(20))
        expect(ids(yield* queue.claim({ ...lease("a", 30, 40), limit: 1 }))).toEqual(["dlv_2"])
        // dlv_2 is leased until at(70): the next claimable one is dlv_1, due at(50)
        expect(yield* queue.nextDue).toBe(at(50))
        expect(ids(yield* queue.claim({ ...lease("b", 50, 100), limit: 1 }))).toEqual(["dlv_1"])
        // both leased: the earlier lease end, dlv_2's at(70), comes first
        expect(yield* queue.nextDue).toBe(at(70))
      })
    )

    test(
      "lets concurrent claimers on two hosts take every delivery exactly once",
      Effect.gen(function* () {
        const hosts = [yield* DeliveryQueue, (yield* OtherHost).queue]
        const wh = fresh("wh")
        const workspaces = [fresh("ws"), fresh("ws"), fresh("ws")]
        const all = Array.from({ length: 200 }, (_, n) => `dlv_${String(n).padStart(3, "0")}`)
        yield* put(...all.map((id, n) => write(workspaces[n % 3]!, id, scheduled(id, wh, at(n % 17)))))
        const claimer = (queue: DeliveryQueueService, owner: string) =>
          Effect.gen(function* () {
            const taken: Array<string> = []
            while (true) {
              const batch = yield* queue.claim({ ...lease(owner, 100, 3600), limit: 7 })
              if (batch.length === 0) return taken
              taken.push(...ids(batch))
              yield* Effect.yieldNow
            }
          })
        const claimers = hosts.flatMap((queue, h) => [0, 1, 2, 3].map((c) => claimer(queue, `host${h}-claimer${c}`)))
        const taken = (yield* Effect.all(claimers, { concurrency: "unbounded" })).flat()
        expect(taken.length).toBe(all.length)
        expect([...taken].sort()).toEqual(all)
      })
    )

    test(
      "stores webhooks and lists a webhook's deliveries newest first, filtered by status",
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = fresh("ws")
        const [wh, otherWh] = [fresh("wh"), fresh("wh")]
        yield* storage.commit({
          streams: [],
          documents: [
            {
              _tag: "Upsert",
              collection: "webhook",
              workspaceId: ws,
              id: wh,
              version: 1,
              deletedAt: null,
              uniqueKey: null,
              searchWords: [],
              data: { id: wh, url: "https://example.com/hook", events: ["*"], status: "active", created_at: at(0) }
            }
          ]
        })
        expect((yield* storage.getDocument("webhook", ws, wh))?.data["url"]).toBe("https://example.com/hook")
        yield* put(
          write(ws, "dlv_1", scheduled("dlv_1", wh, at(1))),
          write(ws, "dlv_2", succeeded(scheduled("dlv_2", wh, at(2)), at(3)), 2),
          write(ws, "dlv_3", scheduled("dlv_3", wh, at(3))),
          write(ws, "dlv_4", scheduled("dlv_4", otherWh, at(4)))
        )
        const query = (status: string | null): DocumentQuery => ({
          where: {
            _tag: "And",
            exprs: [
              { _tag: "Compare", field: { name: "webhook_id", type: "id" }, op: "eq", value: wh },
              ...(status === null ? [] : [{ _tag: "Compare", field: { name: "status", type: "enum" }, op: "eq", value: status } as const])
            ]
          },
          scope: "live",
          sort: { field: { name: "created_at", type: "timestamp" }, direction: "desc" },
          after: null,
          limit: 10
        })
        expect(ids(yield* storage.queryDocuments("delivery", ws, query(null)))).toEqual(["dlv_3", "dlv_2", "dlv_1"])
        expect(ids(yield* storage.queryDocuments("delivery", ws, query("pending")))).toEqual(["dlv_3", "dlv_1"])
        yield* storage.commit({ streams: [], documents: [{ _tag: "Remove", collection: "webhook", workspaceId: ws, id: wh }] })
        expect(yield* storage.getDocument("webhook", ws, wh)).toBeNull()
      })
    )

    test(
      "stores the event's sequence on a delivery at its first claim, and orders deliveries due together by it",
      Effect.gen(function* () {
        const storage = yield* Storage
        const queue = yield* DeliveryQueue
        const ws = fresh("ws")
        const wh = fresh("wh")
        const stream = fresh("con")
        yield* storage.commit({
          streams: [{ streamId: stream, expectedVersion: 0, events: [event(ws, "x.one"), event(ws, "x.two")] }],
          documents: []
        })
        const [, second] = yield* storage.readStream(stream)
        yield* put(
          write(ws, "dlv_unknown", scheduled("dlv_unknown", wh, at(-9), { streamId: stream, version: 2 })),
          write(ws, "dlv_30", scheduled("dlv_30", wh, at(-1), { sequence: 30 })),
          write(ws, "dlv_10", scheduled("dlv_10", wh, at(-1), { sequence: 10 })),
          write(ws, "dlv_20", scheduled("dlv_20", wh, at(-1), { sequence: 20 }))
        )
        const claimed = yield* queue.claim({ ...lease("a", 0, 5), limit: 10 })
        expect(ids(claimed)).toEqual(["dlv_unknown", "dlv_10", "dlv_20", "dlv_30"])
        expect(claimed.map((d) => d.data["sequence"])).toEqual([second!.sequence, 10, 20, 30])
        // Stored, not only answered: a later claim (the lease ran out) reads it back from the delivery.
        const again = yield* queue.claim({ ...lease("b", 10), limit: 1 })
        expect(again.map((d) => [d.id, d.data["sequence"]])).toEqual([["dlv_unknown", second!.sequence]])
      })
    )

    test(
      "claims at most perWebhook deliveries of one webhook and none of skipWebhooks, reaching the others' behind them",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        const ws = fresh("ws")
        const [busy, quiet] = [fresh("wh"), fresh("wh")]
        // The busy webhook's backlog is due first; the quiet one's single delivery is due last.
        yield* put(
          ...[1, 2, 3, 4, 5].map((n) => write(ws, `dlv_b${n}`, scheduled(`dlv_b${n}`, busy, at(-10 + n)))),
          write(ws, "dlv_q", scheduled("dlv_q", quiet, at(-1)))
        )
        expect(ids(yield* queue.claim({ ...lease("a", 0), limit: 10, perWebhook: 2 }))).toEqual(["dlv_b1", "dlv_b2", "dlv_q"])
        expect(ids(yield* queue.claim({ ...lease("a", 0), limit: 10, perWebhook: 2, skipWebhooks: [busy] }))).toEqual([])
        expect(ids(yield* queue.claim({ ...lease("a", 0), limit: 10, perWebhook: 2 }))).toEqual(["dlv_b3", "dlv_b4"])
      })
    )

    test(
      "delivers a signal to the subscribers of every host, the sender's included",
      Effect.gen(function* () {
        const queue = yield* DeliveryQueue
        const other = (yield* OtherHost).queue
        const heard = (subscriber: DeliveryQueueService, wanted: (signal: QueueSignal) => boolean) =>
          Effect.forkChild(Stream.runHead(Stream.filter(subscriber.signals, wanted)))
        const webhookId = fresh("wh")
        const deleted: QueueSignal = { _tag: "WebhookDeleted", webhookId }
        const isDeleted = (s: QueueSignal) => s._tag === "WebhookDeleted" && s.webhookId === webhookId
        const listeners = [
          yield* heard(other, isDeleted),
          yield* heard(queue, isDeleted),
          yield* heard(other, (s) => s._tag === "Scheduled")
        ]
        // A subscription starts listening asynchronously (on PostgreSQL, LISTEN on a connection of
        // its own): repeat the signals until every subscriber has heard them.
        const sender = yield* Effect.forkChild(
          Effect.forever(
            Effect.all([queue.signal(deleted), queue.signal({ _tag: "Scheduled" })]).pipe(Effect.andThen(Effect.sleep("100 millis")))
          )
        )
        const results = yield* Fiber.joinAll(listeners).pipe(Effect.timeout("20 seconds"))
        yield* Fiber.interrupt(sender)
        expect(results).toEqual([Option.some(deleted), Option.some(deleted), Option.some({ _tag: "Scheduled" })])
      })
    )
  })
}
