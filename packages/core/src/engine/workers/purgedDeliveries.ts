import { Effect, Result } from "effect"
import { Conflict } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { Position } from "../../query/ast.js"
import type { DocumentWrite, StoredDocument } from "../../storage/documents.js"
import { isRedacted } from "../../storage/events.js"
import type { StreamAppend } from "../../storage/Storage.js"
import { deliveryCancellation } from "../commands/deliveryCancellation.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import type { Addition, AlsoContext } from "../commands/commandOptions.js"

/** What purged data reads as, in the log (storage writes it) and in the documents. */
const REDACTED: JsonObject = { redacted: true }

/** Deliveries read per query; and redacted per commit ahead of a purge's own (redactDeliveriesAhead). */
const READ_PAGE = 500
const COMMIT_PAGE = 100
/** A page whose deliveries another writer changed meanwhile (a worker's attempt) is read again and retried. */
const PAGE_ATTEMPTS = 5

const ofRecord = (recordId: string) =>
  ({
    _tag: "Compare",
    field: { name: "event_stream_id", type: "id" },
    op: "eq",
    value: recordId
  }) as const

/** Whether a delivery's payload no longer carries anything of the record (a purge or an erasure redacted it). */
const redactedDelivery = (delivery: StoredDocument): boolean => isRedacted(delivery.data["payload_data"] ?? null)

/**
 * A page of the deliveries of the record's events, in id order after `after` (an id; null: from the
 * first), all of them, redacted ones included, so a caller walking the pages always moves on.
 */
const deliveriesPage = (deps: EngineDeps, ctx: RequestContext, recordId: string, after: string | null, limit: number) =>
  deps.storage.queryDocuments("delivery", ctx.workspaceId, {
    where: ofRecord(recordId),
    scope: "live",
    sort: { field: { name: "id", type: "id" }, direction: "asc" },
    after: after === null ? null : ({ value: after, id: after } satisfies Position),
    limit
  })

/** The ids of every delivery of the record's events, redacted or not, in id order (a person's export names them). */
export const deliveryIdsOf = (deps: EngineDeps, ctx: RequestContext, recordId: string) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    for (let after: string | null = null; ; ) {
      const page: ReadonlyArray<StoredDocument> = yield* deliveriesPage(deps, ctx, recordId, after, READ_PAGE)
      out.push(...page.map((delivery) => delivery.id))
      if (page.length < READ_PAGE) return out
      after = page[page.length - 1]!.id
    }
  })

/** Every delivery of the record's events whose payload still carries it, read a page at a time (only those kept). */
const unredactedDeliveries = (deps: EngineDeps, ctx: RequestContext, recordId: string) =>
  Effect.gen(function* () {
    const out: Array<StoredDocument> = []
    for (let after: string | null = null; ; ) {
      const page: ReadonlyArray<StoredDocument> = yield* deliveriesPage(deps, ctx, recordId, after, READ_PAGE)
      out.push(...page.filter((delivery) => !redactedDelivery(delivery)))
      if (page.length < READ_PAGE) return out
      after = page[page.length - 1]!.id
    }
  })

/**
 * What redacting these deliveries adds to a commit: each one still pending is cancelled first (a
 * redacted delivery is never sent again, and a replay of it sends `{"redacted": true}`), its
 * document keeps everything but the payload, and its events lose their data (`redactStreams`).
 */
const redactionOf = (deps: EngineDeps, ctx: RequestContext, deliveries: ReadonlyArray<StoredDocument>, at: string) =>
  Effect.gen(function* () {
    const streams: Array<StreamAppend> = []
    const documents: Array<DocumentWrite> = []
    for (const delivery of deliveries) {
      const cancelled = delivery.data["status"] === "pending" ? yield* deliveryCancellation(deps, ctx, delivery.id, at) : null
      if (cancelled !== null) streams.push(cancelled.stream)
      const document = cancelled?.document ?? { ...delivery, _tag: "Upsert" as const, uniqueKey: null, searchWords: [] }
      if (document._tag === "Remove") continue
      documents.push({ ...document, data: { ...document.data, payload_data: REDACTED } })
    }
    return { streams, documents, redactStreams: deliveries.map((delivery) => delivery.id) }
  })

/**
 * The payloads of a record's deliveries redacted ahead of its purge, a page of deliveries per commit,
 * so that no commit grows with the record's history (a contact updated thousands of times, announced
 * to several webhooks, has tens of thousands): each delivery's stream is in exactly one commit. The
 * purge's own commit then takes those made meanwhile (purgedDeliveries). Answers how many it redacted.
 */
export const redactDeliveriesAhead = (deps: EngineDeps, ctx: RequestContext, recordId: string) =>
  Effect.gen(function* () {
    let redacted = 0
    for (let after: string | null = null; ; ) {
      const page: ReadonlyArray<StoredDocument> = yield* deliveriesPage(deps, ctx, recordId, after, COMMIT_PAGE)
      let pending = page.filter((delivery) => !redactedDelivery(delivery))
      for (let attempt = 1; pending.length > 0; attempt++) {
        const addition = yield* redactionOf(deps, ctx, pending, yield* nowIso)
        const stored = yield* Effect.result(deps.storage.commit(addition))
        if (Result.isSuccess(stored)) {
          redacted += pending.length
          break
        }
        const error = stored.failure
        // Documents of deliveries only, none with a unique key: a version conflict is the one refusal.
        if (error._tag !== "VersionConflict") return yield* error._tag === "UniqueViolation" ? Effect.die(error) : Effect.fail(error)
        if (attempt >= PAGE_ATTEMPTS) {
          return yield* new Conflict({
            message: `the deliveries of ${recordId} are being changed concurrently; retry the request`,
            details: []
          })
        }
        const fresh = yield* deps.storage.getDocuments(
          "delivery",
          ctx.workspaceId,
          pending.map((delivery) => delivery.id)
        )
        pending = fresh.filter((delivery) => !redactedDelivery(delivery))
      }
      if (page.length < COMMIT_PAGE) return redacted
      after = page[page.length - 1]!.id
    }
  })

/**
 * What a purge erases in its own commit: the personal data of the record's earlier events, and of
 * the deliveries of those events, whose payloads carried the record as it was, those the pages
 * ahead of it (redactDeliveriesAhead) left: made since, or all of them for a caller that redacts
 * none ahead. `counted` is told, on each attempt, how many deliveries that is.
 */
export const purgedDeliveries =
  (deps: EngineDeps, ctx: RequestContext, counted: (deliveries: number) => void = () => {}) =>
  ({ at, streamId }: AlsoContext<unknown>) =>
    Effect.gen(function* () {
      const deliveries = yield* unredactedDeliveries(deps, ctx, streamId)
      const redaction = yield* redactionOf(deps, ctx, deliveries, at)
      counted(deliveries.length)
      return { ...redaction, redactStreams: [streamId, ...redaction.redactStreams] } satisfies Addition
    })
