import { Effect, Result, Schema } from "effect"
import { deliveryAggregate, DeliveryDocument, deliveryView, testRequest } from "../../delivery/index.js"
import { NotFound, ValidationError } from "../../errors.js"
import { recoveryAggregate } from "../../recovery/index.js"
import type { Expr, FieldRef } from "../../query/ast.js"
import { fieldInfo } from "../../query/fields.js"
import type { StoredDocument } from "../../storage/documents.js"
import { parseWebhookCreate, parseWebhookPatch, webhookAggregate, webhookView } from "../../webhook/index.js"
import { deliveryCancellation } from "../commands/deliveryCancellation.js"
import type { EngineDeps } from "../base/deps.js"
import type { IfMatch, ListParams, RequestContext, WebhookTestAttempt } from "../contract/Engine.js"
import { handleCommand } from "../commands/handleCommand.js"
import { listPage } from "../views/listPage.js"
import { queryAll } from "../base/reads.js"
import { storableBody, storableParams } from "../base/storable.js"
import { timedPost, webhookDocument as decodedWebhook } from "../workers/webhookCalls.js"
import { makeWebhookRecoveries } from "./webhookRecovery.js"

const ref = (name: string, type: FieldRef["type"]): FieldRef => ({ name, type })
const webhookIdField = ref("webhook_id", "id")
const statusField = ref("status", "enum")
const deliveryStatuses = ["pending", "succeeded", "failed", "cancelled"]

const deliveryCatalog = new Map([
  ["webhook_id", fieldInfo("webhook_id", "id")],
  ["status", fieldInfo("status", "enum")],
  ["created_at", fieldInfo("created_at", "timestamp")]
])

const eq = (field: FieldRef, value: string): Expr => ({ _tag: "Compare", field, op: "eq", value })

export const makeWebhooks = (deps: EngineDeps) => {
  const recoveries = makeWebhookRecoveries(deps)
  const { config, transport } = deps.webhooks

  /** When the webhook was last attempted: the newest last_attempt_at among its deliveries. */
  const lastDeliveryAt = (ctx: RequestContext, webhookId: string) =>
    Effect.map(
      deps.storage.queryDocuments("delivery", ctx.workspaceId, {
        where: { _tag: "And", exprs: [eq(webhookIdField, webhookId), { _tag: "Exists", field: ref("last_attempt_at", "timestamp") }] },
        scope: "live",
        sort: { field: ref("last_attempt_at", "timestamp"), direction: "desc" },
        after: null,
        limit: 1
      }),
      (rows) => {
        const at = rows[0]?.data["last_attempt_at"]
        return typeof at === "string" ? at : null
      }
    )

  const view = (ctx: RequestContext, doc: StoredDocument) => Effect.map(lastDeliveryAt(ctx, doc.id), (at) => webhookView(doc.data, at))

  const webhookDocument = (ctx: RequestContext, id: string) =>
    Effect.flatMap(deps.storage.getDocument("webhook", ctx.workspaceId, id), (doc) =>
      doc === null ? Effect.fail(new NotFound({ resource: "webhook", id })) : Effect.succeed(doc)
    )

  const get = (ctx: RequestContext, id: string) =>
    Effect.gen(function* () {
      const doc = yield* webhookDocument(ctx, id)
      return { data: yield* view(ctx, doc), version: doc.version }
    })

  const list = (ctx: RequestContext) =>
    Effect.gen(function* () {
      const docs = yield* queryAll(deps, "webhook", ctx.workspaceId, { _tag: "True" })
      return { data: yield* Effect.forEach(docs, (doc) => view(ctx, doc)), next_cursor: null }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function* () {
      const parsed = parseWebhookCreate(yield* storableBody(body), { allowInsecure: config.allowInsecure, recordTypes: deps.recordTypes })
      if (Result.isFailure(parsed)) return yield* parsed.failure
      yield* transport.checkTarget(parsed.success.url, config.allowInsecure)
      const id = yield* deps.ids.make(webhookAggregate.prefix)
      yield* handleCommand(deps, webhookAggregate, {
        ctx,
        streamId: id,
        stream: "new",
        command: ({ at }) => Effect.succeed({ type: "CreateWebhook" as const, id, at, ...parsed.success })
      })
      return yield* get(ctx, id)
    })

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.gen(function* () {
      const parsed = parseWebhookPatch(yield* storableBody(body), { allowInsecure: config.allowInsecure, recordTypes: deps.recordTypes })
      if (Result.isFailure(parsed)) return yield* parsed.failure
      if (parsed.success.url !== undefined) yield* transport.checkTarget(parsed.success.url, config.allowInsecure)
      const recoveryId = parsed.success.recover_since === undefined ? undefined : yield* deps.ids.make(recoveryAggregate.prefix)
      yield* handleCommand(deps, webhookAggregate, {
        ctx,
        streamId: id,
        ifMatch,
        command: ({ at }) =>
          Effect.succeed({
            type: "UpdateWebhook" as const,
            id,
            at,
            fields: parsed.success,
            ...(recoveryId === undefined ? {} : { recoveryId })
          }),
        ...(recoveryId === undefined ? {} : { also: recoveries.recoveryStartedIn(ctx, recoveryId, id) })
      })
      return yield* get(ctx, id)
    })

  const remove = (ctx: RequestContext, id: string, ifMatch: IfMatch) =>
    Effect.gen(function* () {
      yield* handleCommand(deps, webhookAggregate, {
        ctx,
        streamId: id,
        ifMatch,
        command: ({ at }) => Effect.succeed({ type: "DeleteWebhook" as const, id, at }),
        // Queued deliveries are cancelled in the same commit: once the delete is acknowledged, no
        // worker can record another attempt for them (its commit would meet a newer version).
        also: ({ at }) =>
          Effect.gen(function* () {
            const pending = yield* queryAll(deps, "delivery", ctx.workspaceId, {
              _tag: "And",
              exprs: [eq(webhookIdField, id), eq(statusField, "pending")]
            })
            const cancelled = yield* Effect.forEach(pending, (delivery) => deliveryCancellation(deps, ctx, delivery.id, at))
            const parts = cancelled.filter((part) => part !== null)
            return { streams: parts.map((p) => p.stream), documents: parts.map((p) => p.document) }
          })
      })
      // Attempts already on the wire, on any host, are aborted now rather than at their timeout.
      yield* deps.queue.signal({ _tag: "WebhookDeleted", webhookId: id }).pipe(Effect.ignore)
    })

  const deliveryDocument = (ctx: RequestContext, webhookId: string, deliveryId: string) =>
    Effect.flatMap(deps.storage.getDocument("delivery", ctx.workspaceId, deliveryId), (doc) =>
      doc === null || doc.data["webhook_id"] !== webhookId
        ? Effect.fail(new NotFound({ resource: "delivery", id: deliveryId }))
        : Effect.succeed(doc)
    )

  const deliveries = (ctx: RequestContext, webhookId: string, params: ListParams) =>
    Effect.gen(function* () {
      const checked = yield* storableParams(params)
      yield* webhookDocument(ctx, webhookId)
      const status = checked["status"]
      if (status !== undefined && !deliveryStatuses.includes(status)) {
        return yield* ValidationError.at("status", `must be one of ${deliveryStatuses.join(", ")}`)
      }
      const page = yield* listPage(deps, ctx, "delivery", checked, {
        catalog: deliveryCatalog,
        scope: "live",
        baseWhere:
          status === undefined
            ? eq(webhookIdField, webhookId)
            : { _tag: "And", exprs: [eq(webhookIdField, webhookId), eq(statusField, status)] },
        defaultSort: { field: ref("created_at", "timestamp"), direction: "desc" },
        allow: { filter: false, search: false, sort: false },
        extraParams: ["status"]
      })
      return { data: page.rows.map((row) => deliveryView(row.data, { withAttempts: false })), next_cursor: page.next_cursor }
    })

  const delivery = (ctx: RequestContext, webhookId: string, deliveryId: string) =>
    Effect.gen(function* () {
      yield* webhookDocument(ctx, webhookId)
      const doc = yield* deliveryDocument(ctx, webhookId, deliveryId)
      return { data: deliveryView(doc.data, { withAttempts: true }), version: doc.version }
    })

  const replay = (ctx: RequestContext, webhookId: string, deliveryId: string) =>
    Effect.gen(function* () {
      yield* webhookDocument(ctx, webhookId)
      const original = yield* Schema.decodeUnknownEffect(DeliveryDocument)((yield* deliveryDocument(ctx, webhookId, deliveryId)).data).pipe(
        Effect.orDie
      )
      const id = yield* deps.ids.make(deliveryAggregate.prefix)
      yield* handleCommand(deps, deliveryAggregate, {
        ctx,
        streamId: id,
        stream: "new",
        command: ({ at }) =>
          Effect.succeed({
            type: "ScheduleDelivery" as const,
            id,
            at,
            webhookId,
            eventId: original.event_id,
            eventType: original.event_type,
            eventStreamId: original.event_stream_id,
            eventVersion: original.event_version,
            eventCreatedAt: original.event_created_at,
            payloadData: original.payload_data,
            replayOf: deliveryId,
            ...(typeof original.sequence === "number" ? { sequence: original.sequence } : {})
          })
      })
      yield* deps.queue.signal({ _tag: "Scheduled" }).pipe(Effect.ignore)
      return yield* delivery(ctx, webhookId, id)
    })

  /**
   * Sends `webhook.test` at once, whatever the webhook's status, under the worker's transport rules
   * (timeout, insecure targets) and timed as its attempts are, and records nothing: no event, no
   * delivery. A fresh event id each time, so a receiver's de-duplication by webhook-id lets every
   * test through.
   */
  const test = (ctx: RequestContext, id: string) =>
    Effect.gen(function* () {
      const webhook = yield* decodedWebhook(yield* webhookDocument(ctx, id))
      const eventId = yield* deps.ids.make("evt")
      const { answer, durationMs } = yield* timedPost(deps, (started) =>
        testRequest({ webhook, workspaceId: ctx.workspaceId, eventId, at: started })
      )
      return {
        status_code: Result.isSuccess(answer) ? answer.success.status : null,
        duration_ms: durationMs,
        error: Result.isFailure(answer) ? answer.failure.message : null
      } satisfies WebhookTestAttempt
    })

  return {
    list,
    get,
    create,
    update,
    delete: remove,
    deliveries,
    delivery,
    replay,
    test,
    recover: recoveries.start,
    recovery: recoveries.get
  }
}
