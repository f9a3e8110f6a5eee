import { Clock, Duration, Effect, identity, Layer, Queue, Random, Result, Schedule, Schema, Semaphore, Stream } from "effect"
import { deliveryAggregate, type DeliveryCommand, DeliveryDocument, deliveryRequest, type DeliveryState } from "../../delivery/index.js"
import type { StoredDocument } from "../../storage/documents.js"
import { webhookAggregate, type WebhookDocument } from "../../webhook/index.js"
import { type EngineDeps, makeEngineDeps } from "../base/deps.js"
import type { IfMatch } from "../contract/Engine.js"
import { handleCommand } from "../commands/handleCommand.js"
import type { StreamState } from "../base/streamStates.js"
import { runWebhookRecoveries } from "./recoveryRunner.js"
import { timedPost, webhookDocument, webhookSystemContext } from "./webhookCalls.js"

export interface DeliveryWorkerOptions {
  /** Who holds the leases: unique per worker process. */
  readonly owner: string
  /** Attempts in flight at once, to all webhooks (default: WebhookConfig's workerConcurrency). */
  readonly concurrency?: number
  /** Attempts in flight at once to one webhook (default: WebhookConfig's endpointConcurrency). */
  readonly endpointConcurrency?: number
  /** How often to look for due work when no signal arrives (lost signals, retries coming due). */
  readonly pollMillis?: number
  /** How long a claim lasts; past it another worker may send again (default: WebhookConfig's leaseMillis). */
  readonly leaseMillis?: number
}

/**
 * A claimed delivery outlives a short storage outage: the reads before its POST and the record
 * after it are tried again for a while, instead of leaving the delivery leased (timeout + 30 s)
 * and sent a second time once the lease runs out. Within the lease's 30 s margin.
 */
const whileUnavailable =
  (budget: Duration.Input) =>
  <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.retry(effect, {
      while: (error) => error._tag === "StorageUnavailable",
      schedule: Schedule.spaced(Duration.millis(250)).pipe(Schedule.upTo({ duration: budget }))
    })

/** A command of the claimed delivery, as the worker's. */
const onDelivery = (
  deps: EngineDeps,
  doc: StoredDocument,
  command: (at: string) => DeliveryCommand,
  ifMatch: IfMatch = null,
  known?: StreamState<DeliveryState>
) =>
  handleCommand(deps, deliveryAggregate, {
    ctx: webhookSystemContext(doc.workspaceId),
    streamId: doc.id,
    ifMatch,
    ...(known === undefined ? {} : { known }),
    command: ({ at }) => Effect.succeed(command(at))
  })

/**
 * The delivery's stream state as its claimed document shows it, so that recording the attempt
 * commits without reading the stream first: the document is what the stream's events projected
 * to at `doc.version` (its lease aside), and the commit checks that version.
 */
const claimedState = (doc: StoredDocument, delivery: DeliveryDocument): StreamState<DeliveryState> => ({
  version: doc.version,
  state: { status: delivery.status, attemptCount: delivery.attempt_count },
  projected: { data: doc.data, deletedAt: doc.deletedAt },
  lastAt: delivery.last_attempt_at ?? delivery.created_at
})

/**
 * The event's global position, for the payload's `sequence`: the queue's claim stores it on the
 * delivery; read from the log only for a delivery that reached a worker some other way.
 */
const sequenceOf = (deps: EngineDeps, workspaceId: string, delivery: DeliveryDocument) =>
  typeof delivery.sequence === "number"
    ? Effect.succeed(delivery.sequence)
    : // Only the event itself is read, however long the record's history.
      Effect.map(
        deps.storage.readStream(delivery.event_stream_id, delivery.event_version - 1, workspaceId),
        (events) => events.find((event) => event.streamVersion === delivery.event_version)?.sequence ?? 0
      )

const cancel = (deps: EngineDeps, doc: StoredDocument, delivery: DeliveryDocument) =>
  onDelivery(deps, doc, (at) => ({ type: "CancelDelivery", id: doc.id, at }), null, claimedState(doc, delivery)).pipe(Effect.ignore)

/**
 * The webhook turned failed after its delivery's record: tried again while the storage is
 * unavailable (a webhook left active would keep receiving), and a failure that remains is logged,
 * never lost silently.
 */
const markWebhookFailed = (deps: EngineDeps, workspaceId: string, webhookId: string, reason: "gone" | "exhausted") =>
  handleCommand(deps, webhookAggregate, {
    ctx: webhookSystemContext(workspaceId),
    streamId: webhookId,
    command: ({ at }) => Effect.succeed({ type: "MarkWebhookFailed" as const, id: webhookId, at, reason })
  }).pipe(
    whileUnavailable("20 seconds"),
    Effect.tapError((error) => Effect.logWarning("could not turn the webhook failed", error)),
    Effect.ignore
  )

/**
 * One attempt of one claimed delivery: POST the signed payload to the webhook's current URL, then
 * record the outcome as an event of the delivery (which also ends the claim). The delivery may have
 * been cancelled meanwhile; recording then fails on its new version and the outcome is dropped.
 * `webhook` is the webhook's document as the worker read it for the claim's batch (null: gone);
 * left out, it is read here. `slot` wraps the request itself: the worker's cap per endpoint.
 */
export const attemptDelivery = (
  deps: EngineDeps,
  doc: StoredDocument,
  delivery: DeliveryDocument,
  webhookRead?: WebhookDocument | null,
  slot: <A, E>(request: Effect.Effect<A, E>) => Effect.Effect<A, E> = identity
) =>
  Effect.gen(function* () {
    const { config } = deps.webhooks
    const webhook =
      webhookRead !== undefined
        ? webhookRead
        : yield* Effect.flatMap(
            deps.storage.getDocument("webhook", doc.workspaceId, delivery.webhook_id).pipe(whileUnavailable("5 seconds")),
            (found) => (found === null ? Effect.succeed(null) : webhookDocument(found))
          )
    // A failed webhook receives nothing new until reactivated; replays are sent whatever its status.
    if (webhook === null || (webhook.status !== "active" && delivery.replay_of === null)) {
      return yield* cancel(deps, doc, delivery)
    }
    const sequence = yield* sequenceOf(deps, doc.workspaceId, delivery).pipe(whileUnavailable("5 seconds"))
    // Timed and signed once the endpoint has a free slot: waiting for one is not part of the attempt.
    const { answer, durationMs } = yield* slot(
      timedPost(deps, (started) =>
        deliveryRequest(
          { delivery, workspaceId: doc.workspaceId, webhook, sequence, timestamp: Math.floor(started / 1000) },
          deps.recordTypes
        )
      )
    )
    const jitter = yield* Random.nextBetween(-1, 1)
    // Recorded only on the version that was claimed: a record tried again after its commit went
    // through (the answer lost with the connection) changes nothing, nor does one that comes after
    // another worker's record of the same delivery.
    const recorded = yield* onDelivery(
      deps,
      doc,
      (at) => ({
        type: "RecordAttempt",
        id: doc.id,
        at,
        statusCode: Result.isSuccess(answer) ? answer.success.status : null,
        durationMs,
        error: Result.isFailure(answer) ? answer.failure.message : null,
        retryAfterSeconds: Result.isSuccess(answer) ? answer.success.retryAfterSeconds : null,
        jitter,
        schedule: config.retrySchedule
      }),
      doc.version,
      claimedState(doc, delivery)
    ).pipe(whileUnavailable("20 seconds"), Effect.option)
    if (recorded._tag === "None") return
    const outcome = recorded.value.fresh.find((event) => event.type === "delivery.attempted")
    const failure = outcome?.data.failure
    if (failure === "gone" || failure === "exhausted") {
      yield* markWebhookFailed(deps, doc.workspaceId, delivery.webhook_id, failure)
    }
  })

/**
 * The webhooks of a claim's deliveries, by workspace and id: one read per workspace, not one per
 * delivery. Absent (deleted) webhooks are left out.
 */
const webhooksOf = (deps: EngineDeps, wanted: ReadonlyArray<{ readonly workspaceId: string; readonly id: string }>) =>
  Effect.gen(function* () {
    const byWorkspace = new Map<string, Set<string>>()
    for (const { id, workspaceId } of wanted) {
      const ids = byWorkspace.get(workspaceId) ?? new Set()
      byWorkspace.set(workspaceId, ids.add(id))
    }
    const found = new Map<string, WebhookDocument>()
    for (const [workspaceId, ids] of byWorkspace) {
      for (const doc of yield* deps.storage.getDocuments("webhook", workspaceId, [...ids])) {
        if (doc.deletedAt === null) found.set(`${workspaceId}\u0000${doc.id}`, yield* webhookDocument(doc))
      }
    }
    return found
  })

interface InFlight {
  /** null for a delivery whose document does not decode (its attempt dies at once). */
  readonly webhookId: string | null
  readonly workspaceId: string
  interrupt: Effect.Effect<void> | null
}

/**
 * The worker loop: claim due deliveries up to the concurrency, attempt each in its own fiber, and
 * sleep until a signal, the next due time or the poll interval. A WebhookDeleted signal from any host
 * interrupts that webhook's attempts, which aborts their requests.
 */
export const runDeliveryWorker = (options: DeliveryWorkerOptions) =>
  Effect.gen(function* () {
    const deps = yield* makeEngineDeps({ listen: false })
    const { config } = deps.webhooks
    const concurrency = options.concurrency ?? config.workerConcurrency
    const endpointConcurrency = options.endpointConcurrency ?? config.endpointConcurrency
    const pollMillis = options.pollMillis ?? 1_000
    const leaseMillis = options.leaseMillis ?? config.leaseMillis ?? config.timeoutMillis + 30_000
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
      Stream.runForEach((signal) => (signal._tag === "Scheduled" ? Queue.offer(wake, undefined) : abortAttemptsOf(signal.webhookId))),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )
    // Signals can be lost (a LISTEN connection being re-established): once per poll interval the
    // webhooks of attempts in flight are looked up, and attempts for a deleted one are aborted.
    const abortOrphans = Effect.gen(function* () {
      const webhooks = new Map(
        [...inFlight.values()].flatMap((entry) => (entry.webhookId === null ? [] : [[entry.webhookId, entry.workspaceId]]))
      )
      for (const [webhookId, workspaceId] of webhooks) {
        const webhook = yield* deps.storage.getDocument("webhook", workspaceId, webhookId)
        if (webhook === null || webhook.deletedAt !== null) yield* abortAttemptsOf(webhookId)
      }
    })
    yield* abortOrphans.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(pollMillis)), Effect.forkScoped)
    yield* Effect.addFinalizer(() => deps.queue.release(options.owner).pipe(Effect.ignore))

    // Deliveries of each webhook this worker holds until their request has ended (waiting for a
    // slot or on the wire; the record after it no longer counts), and each webhook's slots. A
    // webhook holding more than its cap is passed over by claims; one at or under it gets up to the
    // cap more: a busy webhook's next requests are claimed one batch ahead, by one claim per batch
    // rather than one per request, and a slow one holds at most twice its cap of the worker's slots.
    const held = new Map<string, number>()
    const passedOver = (webhookId: string) => (held.get(webhookId) ?? 0) > endpointConcurrency
    const anyPassedOver = () => [...held.keys()].some(passedOver)
    const slots = new Map<string, Semaphore.Semaphore>()
    const hold = (webhookId: string) => {
      held.set(webhookId, (held.get(webhookId) ?? 0) + 1)
      let slot = slots.get(webhookId)
      if (slot === undefined) {
        slot = Semaphore.makeUnsafe(endpointConcurrency)
        slots.set(webhookId, slot)
      }
      return slot
    }
    /** Whether the webhook just stopped being passed over: a claim may now take more of it. */
    const letGo = (webhookId: string): boolean => {
      const left = (held.get(webhookId) ?? 1) - 1
      if (left > 0) held.set(webhookId, left)
      else {
        held.delete(webhookId)
        slots.delete(webhookId)
      }
      return left === endpointConcurrency
    }

    /**
     * Claims as many due deliveries as there are free slots, none of a webhook that already has
     * its cap of them here, reads their webhooks (one read per workspace in the claim), and starts
     * each attempt in a fiber of its own. Their records are commits of their own, which the
     * storage groups with the others arriving together (PostgreSQL's commit batches).
     */
    const claimAndStart = Effect.gen(function* () {
      const free = concurrency - inFlight.size
      if (free <= 0) return "full" as const
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* deps.queue.claim({
        now: new Date(now).toISOString(),
        limit: free,
        owner: options.owner,
        leaseUntil: new Date(now + leaseMillis).toISOString(),
        perWebhook: endpointConcurrency,
        skipWebhooks: [...held.keys()].filter(passedOver)
      })
      if (claimed.length === 0) return { claimed: 0, drained: true }
      const decoded = claimed.map((doc) => ({ doc, delivery: Schema.decodeUnknownResult(DeliveryDocument)(doc.data) }))
      const webhooks = yield* webhooksOf(
        deps,
        decoded.flatMap(({ delivery, doc }) =>
          Result.isSuccess(delivery) ? [{ workspaceId: doc.workspaceId, id: delivery.success.webhook_id }] : []
        )
      ).pipe(whileUnavailable("5 seconds"))
      /** How many of each webhook's deliveries this claim took. */
      const perWebhook = new Map<string, number>()
      for (const { delivery, doc } of decoded) {
        const webhookId = Result.isSuccess(delivery) ? delivery.success.webhook_id : null
        if (webhookId !== null) perWebhook.set(webhookId, (perWebhook.get(webhookId) ?? 0) + 1)
        const entry: InFlight = { webhookId, workspaceId: doc.workspaceId, interrupt: null }
        inFlight.set(doc.id, entry)
        const slot = webhookId === null ? null : hold(webhookId)
        let requestEnded = false
        // Once its request has ended, the webhook may be claimed for again while this records.
        const endRequest = Effect.suspend(() => {
          if (requestEnded || webhookId === null) return Effect.void
          requestEnded = true
          return letGo(webhookId) ? Queue.offer(wake, undefined) : Effect.void
        })
        const inSlot = <A, E>(request: Effect.Effect<A, E>) => slot!.withPermits(1)(request).pipe(Effect.ensuring(endRequest))
        // A document the engine wrote that does not decode is a defect: logged below, left to its lease.
        const attempt = Result.isSuccess(delivery)
          ? attemptDelivery(
              deps,
              doc,
              delivery.success,
              webhooks.get(`${doc.workspaceId}\u0000${delivery.success.webhook_id}`) ?? null,
              inSlot
            )
          : Effect.die(delivery.failure)
        const fiber = yield* attempt.pipe(
          Effect.catchCause((cause) => Effect.logWarning("delivery attempt failed", cause)),
          Effect.ensuring(
            Effect.suspend(() => {
              // A loop waiting for a free slot is woken; one that is not has claimed all it could.
              const wasFull = inFlight.size >= concurrency
              inFlight.delete(doc.id)
              return endRequest.pipe(Effect.andThen(wasFull ? Queue.offer(wake, undefined) : Effect.void))
            })
          ),
          Effect.forkScoped
        )
        entry.interrupt = Effect.sync(() => fiber.interruptUnsafe())
      }
      // Under its limit, and no webhook cut at its share: the claim took every delivery due at its
      // snapshot that it was allowed, and what comes due later is signalled or found by the pause.
      const drained = claimed.length < free && [...perWebhook.values()].every((n) => n < endpointConcurrency)
      return { claimed: claimed.length, drained }
    })

    const pause = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const due = yield* deps.queue.nextDue.pipe(Effect.orElseSucceed(() => null))
      const untilDue = due === null ? pollMillis : Math.max(0, Date.parse(due) - now)
      yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(Math.min(pollMillis, Math.max(untilDue, 10))))
    })

    return yield* Effect.forever(
      Effect.gen(function* () {
        const started = yield* claimAndStart.pipe(Effect.orElseSucceed(() => ({ claimed: 0, drained: true })))
        // Every slot taken: the next claim waits for an attempt to end, not for the queue.
        if (started === "full") return yield* Queue.take(wake)
        if (started.claimed > 0) {
          // The attempts just started send their requests before the next claim goes out: each is a
          // write that wakes another process, and the requests are what a receiver waits for.
          yield* Effect.yieldNow
          // There may be more (a claim stops at each webhook's share, not the queue's end), unless
          // the claim drained the queue: asking again would only find it empty, one statement more a
          // delivery at low rates (bench/ANALYSIS.md, issue 32, webhook latency).
          return started.drained && !anyPassedOver() ? yield* pause : undefined
        }
        // What is due now belongs to webhooks passed over (the next due time would be now): wait for
        // one of them to come back under its cap, new work, or the poll, rather than ask again.
        if (anyPassedOver()) return yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(pollMillis))
        yield* pause
      })
    )
  })

/**
 * The worker as a layer: runs while the layer's scope is open, gives its leases back when it closes.
 * The loop runs in a scope of its own, so closing it stops the loop before the leases are released;
 * otherwise the loop could claim again between the release and its interruption and sit on a lease.
 */
export const DeliveryWorkerLive = (options: DeliveryWorkerOptions) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      yield* Effect.forkScoped(Effect.scoped(runDeliveryWorker(options)))
      // Recoveries schedule deliveries: every host that sends them also moves recovery jobs on.
      yield* Effect.forkScoped(runWebhookRecoveries({ owner: options.owner, pollMillis: options.pollMillis ?? 1_000 }))
    })
  )
