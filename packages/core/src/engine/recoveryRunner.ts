import { Clock, Effect, Result } from "effect"
import { type AnyAggregate, aggregateOf, decodeEvents } from "../aggregate.js"
import { contactAggregate } from "../contact/index.js"
import { dealAggregate } from "../deal/index.js"
import { deliveryAggregate, payloadDataFor } from "../delivery/index.js"
import type { Projected } from "../decider.js"
import { NotFound, type StorageUnavailable } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { Expr } from "../query/ast.js"
import {
  type RecoveryCommand,
  type RecoveryEvent,
  type RecoveryJob,
  recoveryAggregate
} from "../recovery/index.js"
import type { StoredDocument } from "../storage/documents.js"
import { type DomainEvent, isRedacted, type StoredEvent } from "../storage/events.js"
import type { StorageService } from "../storage/Storage.js"
import { WEBHOOK_ALL_EVENTS, WEBHOOK_EVENT_TYPES, webhookAggregate, WebhookDocument } from "../webhook/index.js"
import { oneContactView } from "./contactViews.js"
import { dealView } from "./dealViews.js"
import { type EngineDeps, makeEngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { type Addition, type AlsoContext, decide, handleCommand } from "./handleCommand.js"
import { scheduleDelivery } from "./outbox.js"
import { queryAll } from "./reads.js"
import { recordedEvents } from "./recordedEvents.js"
import type { Catalogs } from "./settings.js"
import { loadState, readState } from "./streamStates.js"
import { webhookDocument, webhookSystemContext } from "./webhookCalls.js"

/** Events read per chunk: one commit records the chunk's progress and the deliveries it schedules. */
export const RECOVERY_CHUNK = 500

const ref = (name: string) => ({ name, type: "id" as const })
const eq = (name: string, value: string): Expr => ({ _tag: "Compare", field: ref(name), op: "eq", value })

/** The job as its stream folds; null when there is no such job in this workspace. */
export const jobOf = (storage: StorageService, ctx: RequestContext, jobId: string) =>
  Effect.map(readState(storage, recoveryAggregate, ctx, jobId), (stream) => ({
    version: stream.version,
    job: stream.state.status === "present" ? stream.state.job : null
  }))

/** How the records an event may be about are shown in a payload: as the API shows them. */
const viewers: ReadonlyArray<{
  readonly aggregate: AnyAggregate
  readonly view: (deps: EngineDeps, ctx: RequestContext, id: string, data: JsonObject, catalogs: Catalogs) => Effect.Effect<JsonObject, StorageUnavailable>
}> = [
  { aggregate: contactAggregate, view: (deps, ctx, id, data, catalogs) => oneContactView(deps, ctx, id, data, catalogs.contact) },
  { aggregate: dealAggregate, view: (deps, ctx, _id, data, catalogs) => dealView(deps, ctx, data, catalogs.deal) }
]

/**
 * Each event's payload data, as the outbox would have made it when the event was recorded: the
 * record as it stood right after the event, shown by the API's view. That record is its document
 * when the event is the stream's last (most events of a backfill: records created and left alone),
 * read in one query per aggregate; otherwise the stream is folded up to the event. Events of a
 * record erased since (a purge) have none: its data is gone for good.
 */
const payloadsOf = (deps: EngineDeps, ctx: RequestContext, events: ReadonlyArray<StoredEvent>, catalogs: Catalogs) =>
  Effect.gen(function*() {
    const payloads = new Map<string, JsonObject>()
    const byStream = new Map<string, Array<StoredEvent>>()
    for (const event of events) byStream.set(event.streamId, [...(byStream.get(event.streamId) ?? []), event])
    yield* Effect.forEach(viewers, ({ aggregate, view }) =>
      Effect.gen(function*() {
        const project = aggregate.project
        const streams = [...byStream].filter(([streamId]) => aggregateOf([aggregate], streamId) !== undefined)
        if (project === null || streams.length === 0) return
        const collection = aggregate.collections[0]!
        const documents = new Map(
          (yield* deps.storage.getDocuments(collection, ctx.workspaceId, streams.map(([streamId]) => streamId))).map((doc) => [doc.id, doc])
        )
        const add = (event: StoredEvent, decoded: DomainEvent, record: JsonObject) =>
          Effect.map(view(deps, ctx, event.streamId, record, catalogs), (shown) => {
            const data = payloadDataFor(decoded, shown)
            if (data !== null) payloads.set(event.metadata.eventId, data)
          })
        yield* Effect.forEach(streams, ([streamId, wanted]) =>
          Effect.gen(function*() {
            const doc = documents.get(streamId)
            const only = wanted.length === 1 ? wanted[0]! : undefined
            // Candidates are never redacted: the event is its record's last, so the document is the record after it.
            if (doc !== undefined && only !== undefined && doc.version === only.streamVersion) {
              const decoded = decodeEvents(aggregate, [only])
              if (Result.isFailure(decoded)) return yield* Effect.die(decoded.failure)
              return yield* add(only, decoded.success[0]!, doc.data)
            }
            // Empty for a record purged since: its events get no payload.
            const stream = yield* recordedEvents(deps, aggregate, ctx, streamId)
            let record: Projected | null = null
            let folded = 0
            for (const event of wanted) {
              for (; folded < event.streamVersion && folded < stream.length; folded++) record = project(record, stream[folded]!.event)
              const decoded = stream[event.streamVersion - 1]
              if (record !== null && decoded !== undefined) yield* add(event, decoded.event, record.data)
            }
          }), { concurrency: 8, discard: true })
      }), { discard: true })
    return payloads
  })

/** The events of these streams that this webhook already has a delivery of that counts: sent, or still to be sent. */
const coveredEvents = (deps: EngineDeps, ctx: RequestContext, webhookId: string, streamIds: ReadonlyArray<string>) =>
  Effect.map(
    queryAll(deps, "delivery", ctx.workspaceId, {
      _tag: "And",
      exprs: [eq("webhook_id", webhookId), { _tag: "In", field: ref("event_stream_id"), values: streamIds }]
    }),
    (deliveries) =>
      new Set(deliveries.filter((d) => d.data["status"] === "succeeded" || d.data["status"] === "pending").map((d) => String(d.data["event_id"])))
  )

interface Chunk {
  readonly command: RecoveryCommand
  readonly scheduled: ReadonlyArray<{ readonly event: StoredEvent; readonly payload: JsonObject }>
}

/**
 * The next chunk of a job, decided on its state as this attempt of the command reads it: a runner
 * that lost a race to another one decides again from where the winner left off.
 */
const nextChunk = (
  deps: EngineDeps,
  ctx: RequestContext,
  job: RecoveryJob,
  webhook: WebhookDocument,
  runner: string,
  at: string,
  catalogs: Catalogs,
  size: number
) =>
  Effect.gen(function*() {
    if (webhook.status !== "active") {
      return { command: { type: "FinishRecovery", id: job.id, at, status: "failed", reason: "the webhook turned failed" }, scheduled: [] } satisfies Chunk
    }
    // Fixed by the first chunk, after the job's commit: later events are the outbox's. A write
    // decided while the webhook was failed cannot commit after a reactivation (its settings read
    // no longer holds), so every event below this head that the outbox skipped is visible here.
    const until = job.until ?? (yield* deps.storage.headSequence)
    const types = webhook.events.includes(WEBHOOK_ALL_EVENTS) ? [...WEBHOOK_EVENT_TYPES] : [...webhook.events]
    const events = yield* deps.storage.readWorkspaceLog({ workspaceId: ctx.workspaceId, after: job.position, until, types, limit: size })
    if (events.length === 0) {
      return { command: { type: "FinishRecovery", id: job.id, at, status: "done", reason: null }, scheduled: [] } satisfies Chunk
    }
    const since = Date.parse(job.since)
    const inRange = events.filter((event) => Date.parse(event.recordedAt) >= since)
    const covered = yield* coveredEvents(deps, ctx, job.webhookId, [...new Set(inRange.map((e) => e.streamId))])
    const candidates = inRange.filter((event) => !isRedacted(event.data) && !covered.has(event.metadata.eventId))
    const payloads = yield* payloadsOf(deps, ctx, candidates, catalogs)
    const scheduled = candidates.flatMap((event) => {
      const payload = payloads.get(event.metadata.eventId)
      return payload === undefined ? [] : [{ event, payload }]
    })
    return {
      command: {
        type: "RecordRecoveryProgress",
        id: job.id,
        at,
        runner,
        until,
        position: events[events.length - 1]!.sequence,
        scheduled: scheduled.length,
        skipped: inRange.length - scheduled.length
      },
      scheduled
    } satisfies Chunk
  })

/** The deliveries of a chunk, in the chunk's commit, in sequence order. */
const deliveriesOf = (deps: EngineDeps, ctx: RequestContext, webhookId: string, chunk: Chunk) =>
(context: AlsoContext<RecoveryEvent>) =>
  Effect.gen(function*() {
    const parts = yield* Effect.forEach(chunk.scheduled, ({ event, payload }) =>
      Effect.flatMap(deps.ids.make(deliveryAggregate.prefix), (id) =>
        scheduleDelivery(deps, ctx, {
          type: "ScheduleDelivery",
          id,
          at: context.at,
          webhookId,
          eventId: event.metadata.eventId,
          eventType: event.type,
          eventStreamId: event.streamId,
          eventVersion: event.streamVersion,
          eventCreatedAt: event.recordedAt,
          payloadData: payload,
          replayOf: null,
          sequence: event.sequence
        })))
    return {
      streams: parts.map((p) => p.stream),
      documents: parts.map((p) => p.document),
      signals: parts.length === 0 ? [] : [{ _tag: "Scheduled" }]
    } satisfies Addition
  })

/**
 * A finished job frees its webhook in the same commit: once a client reads the job as done, it
 * can start another.
 */
const webhookFreed = (deps: EngineDeps, ctx: RequestContext, webhookId: string, jobId: string, at: string) =>
  Effect.gen(function*() {
    const { stream } = yield* loadState(deps.storage, deps.states, webhookAggregate, ctx, webhookId, false)
    const decided = yield* decide(deps, webhookAggregate, { ctx, streamId: webhookId, stream }, {
      type: "EndWebhookRecovery",
      id: webhookId,
      at,
      recoveryId: jobId
    }).pipe(Effect.orDie)
    return { streams: [decided.append], documents: decided.documents } satisfies Addition
  })

export interface RecoveryRunnerOptions {
  /** This runner, unique per host process. */
  readonly owner: string
  /** How often to look for jobs while none is moving. */
  readonly pollMillis?: number
  /**
   * A job another runner recorded a chunk of within this long is left to it; past it (its host
   * died, say) this runner takes over. Correctness does not rest on it: the job's stream version
   * lets only one runner record each chunk.
   */
  readonly staleMillis?: number
  /** Events read per chunk (default RECOVERY_CHUNK). */
  readonly chunk?: number
}

/**
 * One step of one webhook's running job: a chunk recorded, the job finished, or the webhook told
 * its job has ended. True when it did something, so the runner goes on at once.
 */
const step = (deps: EngineDeps, options: RecoveryRunnerOptions, doc: StoredDocument) =>
  Effect.gen(function*() {
    const webhook = yield* webhookDocument(doc)
    const running = webhook.recovery
    if (running === undefined) return false
    const ctx = webhookSystemContext(doc.workspaceId)
    const { job } = yield* jobOf(deps.storage, ctx, running.id)
    if (job === null || job.status !== "running") {
      yield* handleCommand(deps, webhookAggregate, {
        ctx,
        streamId: webhook.id,
        command: ({ at }) => Effect.succeed({ type: "EndWebhookRecovery" as const, id: webhook.id, at, recoveryId: running.id })
      })
      return true
    }
    const { owner, staleMillis = 30_000 } = options
    const now = yield* Clock.currentTimeMillis
    if (job.runner !== null && job.runner !== owner && now - Date.parse(job.lastAt) < staleMillis) return false
    let chunk: Chunk | undefined
    yield* handleCommand(deps, recoveryAggregate, {
      ctx,
      streamId: job.id,
      command: ({ at, settings, state }) =>
        Effect.gen(function*() {
          if (state.status === "absent") return yield* new NotFound({ resource: "recovery", id: job.id })
          chunk = yield* nextChunk(deps, ctx, state.job, webhook, owner, at, yield* settings.catalogs, options.chunk ?? RECOVERY_CHUNK)
          return chunk.command
        }),
      also: (context) =>
        chunk === undefined
          ? Effect.succeed({ streams: [], documents: [] })
          : chunk.command.type === "FinishRecovery"
          ? webhookFreed(deps, ctx, webhook.id, job.id, context.at)
          : deliveriesOf(deps, ctx, webhook.id, chunk)(context)
    })
    return true
  })

/**
 * Every host runs this beside its delivery worker: it finds the webhooks with a running recovery
 * (their documents name the job) and moves each job on a chunk at a time until none moves.
 */
export const runWebhookRecoveries = (options: RecoveryRunnerOptions) =>
  Effect.gen(function*() {
    const deps = yield* makeEngineDeps({ listen: false })
    const round = Effect.gen(function*() {
      const webhooks = yield* deps.storage.documentsWith("webhook", "recovery", 100)
      const moved = yield* Effect.forEach(webhooks, (doc) =>
        step(deps, options, doc).pipe(
          // One job's trouble (a storage outage, a conflict it keeps losing) must not stop the others.
          Effect.catchCause((cause) => Effect.as(Effect.logWarning("webhook recovery step failed", cause), false))
        ))
      return moved.some((m) => m)
    }).pipe(Effect.catchCause((cause) => Effect.as(Effect.logWarning("webhook recoveries unreadable", cause), false)))
    for (;;) {
      if (!(yield* round)) yield* Effect.sleep(options.pollMillis ?? 1_000)
    }
  })
