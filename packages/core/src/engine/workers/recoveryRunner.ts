import { Clock, Effect } from "effect"
import { deliveryAggregate } from "../../delivery/index.js"
import { NotFound } from "../../errors.js"
import { announcedAt } from "../../feed/feedEvent.js"
import type { JsonObject } from "../../json.js"
import type { Expr } from "../../query/ast.js"
import { type RecoveryCommand, type RecoveryEvent, type RecoveryJob, recoveryAggregate } from "../../recovery/index.js"
import type { StoredDocument } from "../../storage/documents.js"
import { isRedacted, type StoredEvent } from "../../storage/events.js"
import type { StorageService } from "../../storage/Storage.js"
import { WEBHOOK_ALL_EVENTS, webhookAggregate, type WebhookDocument } from "../../webhook/index.js"
import { announcedPayloads } from "../views/announcedPayloads.js"
import { type EngineDeps, makeEngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import type { Addition, AlsoContext } from "../commands/commandOptions.js"
import { decide } from "../commands/decide.js"
import { handleCommand } from "../commands/handleCommand.js"
import { scheduleDelivery } from "../commands/outbox.js"
import { queryAll } from "../base/reads.js"
import type { Catalogs } from "../base/settings.js"
import { loadState, readState } from "../base/streamStates.js"
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

/** The events of these streams that this webhook already has a delivery of that counts: sent, or still to be sent. */
const coveredEvents = (deps: EngineDeps, ctx: RequestContext, webhookId: string, streamIds: ReadonlyArray<string>) =>
  Effect.map(
    queryAll(deps, "delivery", ctx.workspaceId, {
      _tag: "And",
      exprs: [eq("webhook_id", webhookId), { _tag: "In", field: ref("event_stream_id"), values: streamIds }]
    }),
    (deliveries) =>
      new Set(
        deliveries.filter((d) => d.data["status"] === "succeeded" || d.data["status"] === "pending").map((d) => String(d.data["event_id"]))
      )
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
  Effect.gen(function* () {
    if (webhook.status !== "active") {
      return {
        command: { type: "FinishRecovery", id: job.id, at, status: "failed", reason: "the webhook turned failed" },
        scheduled: []
      } satisfies Chunk
    }
    // Fixed by the first chunk, after the job's commit: later events are the outbox's. A write
    // decided while the webhook was failed cannot commit after a reactivation (its settings read
    // no longer holds), so every event below this head that the outbox skipped is visible here.
    // Positions are the change feed's, whose order holds when the workspace moves between servers.
    const until = job.until ?? (yield* deps.storage.workspaceHead(ctx.workspaceId))
    const types = webhook.events.includes(WEBHOOK_ALL_EVENTS) ? [...deps.recordTypes.eventTypes] : [...webhook.events]
    // A workspace without events has no head: nothing to walk.
    const events =
      until === null
        ? []
        : yield* deps.storage.readWorkspaceLog({ workspaceId: ctx.workspaceId, after: job.position, until, types, limit: size })
    const last = events.at(-1)
    if (until === null || last === undefined) {
      return { command: { type: "FinishRecovery", id: job.id, at, status: "done", reason: null }, scheduled: [] } satisfies Chunk
    }
    const since = Date.parse(job.since)
    const inRange = events.filter((event) => Date.parse(announcedAt(event)) >= since)
    const covered = yield* coveredEvents(deps, ctx, job.webhookId, [...new Set(inRange.map((e) => e.streamId))])
    const candidates = inRange.filter((event) => !isRedacted(event.data) && !covered.has(event.metadata.eventId))
    const payloads = yield* announcedPayloads(deps, ctx, candidates, catalogs)
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
        position: last.position,
        scheduled: scheduled.length,
        skipped: inRange.length - scheduled.length
      },
      scheduled
    } satisfies Chunk
  })

/** The deliveries of a chunk, in the chunk's commit, in sequence order. */
const deliveriesOf = (deps: EngineDeps, ctx: RequestContext, webhookId: string, chunk: Chunk) => (context: AlsoContext<RecoveryEvent>) =>
  Effect.gen(function* () {
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
          eventCreatedAt: announcedAt(event),
          payloadData: payload,
          replayOf: null,
          sequence: event.sequence
        })
      )
    )
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
  Effect.gen(function* () {
    const { stream } = yield* loadState(deps.storage, deps.states, webhookAggregate, ctx, webhookId, false)
    const decided = yield* decide(
      deps,
      webhookAggregate,
      { ctx, streamId: webhookId, stream },
      {
        type: "EndWebhookRecovery",
        id: webhookId,
        at,
        recoveryId: jobId
      }
    ).pipe(Effect.orDie)
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
  Effect.gen(function* () {
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
        Effect.gen(function* () {
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
  Effect.gen(function* () {
    const deps = yield* makeEngineDeps({ listen: false })
    const round = Effect.gen(function* () {
      const webhooks = yield* deps.storage.documentsWith("webhook", "recovery", 100)
      const moved = yield* Effect.forEach(webhooks, (doc) =>
        step(deps, options, doc).pipe(
          // One job's trouble (a storage outage, a conflict it keeps losing) must not stop the others.
          Effect.catchCause((cause) => Effect.as(Effect.logWarning("webhook recovery step failed", cause), false))
        )
      )
      return moved.some((m) => m)
    }).pipe(Effect.catchCause((cause) => Effect.as(Effect.logWarning("webhook recoveries unreadable", cause), false)))
    for (;;) {
      if (!(yield* round)) yield* Effect.sleep(options.pollMillis ?? 1_000)
    }
  })
