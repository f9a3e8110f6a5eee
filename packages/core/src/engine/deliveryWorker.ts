import { Clock, Duration, Effect, Result, Layer, Queue, Random, Schedule, Stream } from "effect"
import { type DeliveryEvent, deliveryDecider, deliveryPayload, projectDelivery } from "../delivery/index.js"
import type { StoredDocument } from "../storage/documents.js"
import { signWebhookPayload, type WebhookEvent, webhookDecider, projectWebhook } from "../webhook/index.js"
import { type EngineDeps, engineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { documentWrite, execute, foldProjection } from "./execute.js"

export interface DeliveryWorkerOptions {
  /** Who holds the leases: unique per worker process. */
  readonly owner: string
  /** Attempts in flight at once. */
  readonly concurrency?: number
  /** How often to look for due work when no signal arrives (lost signals, retries coming due). */
  readonly pollMillis?: number
  /** How long a claim lasts; past it another worker may send again (at-least-once). */
  readonly leaseMillis?: number
}

const system = (workspaceId: string): RequestContext => ({ workspaceId, requestId: null, actor: "system:webhooks" })
const text = (doc: StoredDocument, key: string) => String(doc.data[key] ?? "")

/**
 * A claimed delivery outlives a short storage outage: the reads before its POST and the record
 * after it are tried again for a while, instead of leaving the delivery leased (timeout + 30 s)
 * and sent a second time once the lease runs out. Within the lease's 30 s margin.
 */
const whileUnavailable = (budget: Duration.Input) => <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.retry(effect, {
    while: (error) => error._tag === "StorageUnavailable",
    schedule: Schedule.spaced(Duration.millis(250)).pipe(Schedule.upTo({ duration: budget }))
  })

const deliveryRun = (deps: EngineDeps, doc: StoredDocument) => ({
  ctx: system(doc.workspaceId),
  streamId: doc.id,
  resource: "delivery",
  decider: deliveryDecider,
  ifMatch: null,
  creates: false,
  documents: (all: ReadonlyArray<DeliveryEvent>, _fresh: ReadonlyArray<DeliveryEvent>, version: number) => [
    documentWrite("delivery", doc.workspaceId, doc.id, version, foldProjection(projectDelivery, all))
  ]
})

/** The event's global position, for the payload's `sequence`. */
const sequenceOf = (deps: EngineDeps, doc: StoredDocument) =>
  Effect.map(deps.storage.readStream(text(doc, "event_stream_id")), (events) =>
    events.find((event) => event.streamVersion === Number(doc.data["event_version"]))?.sequence ?? 0)

const cancel = (deps: EngineDeps, doc: StoredDocument) =>
  execute(deps, {
    ...deliveryRun(deps, doc),
    command: ({ at }) => Effect.succeed({ type: "CancelDelivery" as const, id: doc.id, at })
  }).pipe(Effect.ignore)

const markWebhookFailed = (deps: EngineDeps, workspaceId: string, webhookId: string, reason: "gone" | "exhausted") =>
  execute(deps, {
    ctx: system(workspaceId),
    streamId: webhookId,
    resource: "webhook",
    decider: webhookDecider,
    ifMatch: null,
    creates: false,
    documents: (all: ReadonlyArray<WebhookEvent>, _fresh: ReadonlyArray<WebhookEvent>, version: number) => [
      documentWrite("webhook", workspaceId, webhookId, version, foldProjection(projectWebhook, all))
    ],
    command: ({ at }) => Effect.succeed({ type: "MarkWebhookFailed" as const, id: webhookId, at, reason })
  }).pipe(Effect.ignore)

/**
 * One attempt of one claimed delivery: POST the signed payload to the webhook's current URL, then
 * record the outcome as an event of the delivery (which also ends the claim). The delivery may have
 * been cancelled meanwhile; recording then fails on its new version and the outcome is dropped.
 */
export const attemptDelivery = (deps: EngineDeps, doc: StoredDocument) =>
  Effect.gen(function*() {
    const { config, transport } = deps.webhooks
    const webhook = yield* deps.storage.getDocument("webhook", doc.workspaceId, text(doc, "webhook_id")).pipe(whileUnavailable("5 seconds"))
    // A failed webhook receives nothing new until reactivated; replays are sent whatever its status.
    if (webhook === null || (webhook.data["status"] !== "active" && doc.data["replay_of"] === null)) {
      return yield* cancel(deps, doc)
    }
    const body = JSON.stringify(deliveryPayload({
      eventId: text(doc, "event_id"),
      eventType: text(doc, "event_type"),
      createdAt: text(doc, "event_created_at"),
      workspaceId: doc.workspaceId,
      sequence: yield* sequenceOf(deps, doc).pipe(whileUnavailable("5 seconds")),
      data: (doc.data["payload_data"] ?? {}) as Record<string, never>
    }))
    const started = yield* Clock.currentTimeMillis
    const timestamp = Math.floor(started / 1000)
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "dealstream-webhooks/1",
      "x-service-event": text(doc, "event_type"),
      "x-service-delivery": doc.id,
      // API.md promises a resend carries the same X-Service-Event-Id: the event id, as webhook-id.
      "x-service-event-id": text(doc, "event_id"),
      "webhook-id": text(doc, "event_id"),
      "webhook-timestamp": String(timestamp)
    }
    const secret = webhook.data["secret"]
    if (typeof secret === "string") {
      // Signed afresh on every attempt: the timestamp is part of what is signed.
      const signature = signWebhookPayload({ secret, webhookId: text(doc, "event_id"), timestamp, body })
      headers["webhook-signature"] = signature
      headers["x-service-signature"] = signature
    }
    const answer = yield* Effect.result(transport.post({
      url: String(webhook.data["url"]),
      headers,
      body,
      timeoutMillis: config.timeoutMillis,
      allowInsecure: config.allowInsecure
    }))
    const durationMs = (yield* Clock.currentTimeMillis) - started
    const jitter = yield* Random.nextBetween(-1, 1)
    // Recorded only on the version that was claimed: a record tried again after its commit went
    // through (the answer lost with the connection) changes nothing, nor does one that comes after
    // another worker's record of the same delivery.
    const recorded = yield* execute(deps, {
      ...deliveryRun(deps, doc),
      ifMatch: doc.version,
      command: ({ at }) =>
        Effect.succeed({
          type: "RecordAttempt" as const,
          id: doc.id,
          at,
          statusCode: Result.isSuccess(answer) ? answer.success.status : null,
          durationMs,
          error: Result.isFailure(answer) ? answer.failure.message : null,
          retryAfterSeconds: Result.isSuccess(answer) ? answer.success.retryAfterSeconds : null,
          jitter,
          schedule: config.retrySchedule
        })
    }).pipe(whileUnavailable("20 seconds"), Effect.option)
    if (recorded._tag === "None") return
    const outcome = recorded.value.fresh.find((event) => event.type === "delivery.attempted")?.data
    const failure = outcome?.["failure"]
    if (failure === "gone" || failure === "exhausted") {
      yield* markWebhookFailed(deps, doc.workspaceId, text(doc, "webhook_id"), failure)
    }
  })

interface InFlight {
  readonly webhookId: string
  readonly workspaceId: string
  interrupt: Effect.Effect<void> | null
}

/**
 * The worker loop: claim due deliveries up to the concurrency, attempt each in its own fiber, and
 * sleep until a signal, the next due time or the poll interval. A WebhookDeleted signal from any host
 * interrupts that webhook's attempts, which aborts their requests.
 */
export const runDeliveryWorker = (options: DeliveryWorkerOptions) =>
  Effect.gen(function*() {
    const deps = yield* engineDeps
    const concurrency = options.concurrency ?? 16
    const pollMillis = options.pollMillis ?? 1_000
    const leaseMillis = options.leaseMillis ?? deps.webhooks.config.timeoutMillis + 30_000
    const wake = yield* Queue.sliding<void>(1)
    const inFlight = new Map<string, InFlight>()
    /** Interrupting an attempt aborts its request: the receiver sees the connection closed. */
    const abortAttemptsOf = (webhookId: string) =>
      Effect.forEach(
        [...inFlight.values()].filter((entry) => entry.webhookId === webhookId),
        (entry) => entry.interrupt ?? Effect.void,
        { discard: true }
      )

    yield* deps.queue.signals.pipe(
      Stream.runForEach((signal) =>
        signal._tag === "Scheduled"
          ? Queue.offer(wake, undefined)
          : abortAttemptsOf(signal.webhookId)
      ),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    // Signals can be lost (a LISTEN connection being re-established): once per poll interval the
    // webhooks of attempts in flight are looked up, and attempts for a deleted one are aborted.
    const abortOrphans = Effect.gen(function*() {
      const webhooks = new Map([...inFlight.values()].map((entry) => [entry.webhookId, entry.workspaceId]))
      for (const [webhookId, workspaceId] of webhooks) {
        const webhook = yield* deps.storage.getDocument("webhook", workspaceId, webhookId)
        if (webhook === null || webhook.deletedAt !== null) yield* abortAttemptsOf(webhookId)
      }
    })
    yield* abortOrphans.pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(pollMillis)),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => deps.queue.release(options.owner).pipe(Effect.ignore))

    const claimAndStart = Effect.gen(function*() {
      const free = concurrency - inFlight.size
      if (free <= 0) return 0
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* deps.queue.claim({
        now: new Date(now).toISOString(),
        limit: free,
        owner: options.owner,
        leaseUntil: new Date(now + leaseMillis).toISOString()
      })
      for (const doc of claimed) {
        const entry: InFlight = { webhookId: text(doc, "webhook_id"), workspaceId: doc.workspaceId, interrupt: null }
        inFlight.set(doc.id, entry)
        const fiber = yield* attemptDelivery(deps, doc).pipe(
          Effect.catchCause((cause) => Effect.logWarning("delivery attempt failed", cause)),
          Effect.ensuring(Effect.sync(() => inFlight.delete(doc.id)).pipe(Effect.andThen(Queue.offer(wake, undefined)))),
          Effect.forkScoped
        )
        entry.interrupt = Effect.sync(() => fiber.interruptUnsafe())
      }
      return claimed.length
    })

    const pause = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const due = yield* deps.queue.nextDue.pipe(Effect.orElseSucceed(() => null))
      const untilDue = due === null ? pollMillis : Math.max(0, Date.parse(due) - now)
      yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(Math.min(pollMillis, Math.max(untilDue, 10))))
    })

    return yield* Effect.forever(
      Effect.gen(function*() {
        const started = yield* claimAndStart.pipe(Effect.orElseSucceed(() => 0))
        if (started === 0) yield* pause
      })
    )
  })

/**
 * The worker as a layer: runs while the layer's scope is open, gives its leases back when it closes.
 * The loop runs in a scope of its own, so closing it stops the loop before the leases are released;
 * otherwise the loop could claim again between the release and its interruption and sit on a lease.
 */
export const DeliveryWorkerLive = (options: DeliveryWorkerOptions) =>
  Layer.effectDiscard(Effect.forkScoped(Effect.scoped(runDeliveryWorker(options))))
