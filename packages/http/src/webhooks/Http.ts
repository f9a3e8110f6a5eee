import { Engine, type JsonObject } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { Caller } from "../auth/Authentication.js"
import { IdempotentReplies } from "../idempotency.js"
import { handleCollection, wholeCollectionHandlers } from "../recordGroups.js"
import { deleteRecord, postedAction, postedJson, unconditional } from "../recordHandlers.js"
import { readQuery } from "../request/queryParams.js"
import { json, locationOf, page, record, respond } from "../replies.js"

const COLLECTION = "/v1/webhooks"

const deliveriesOf = (webhookId: string) => `${COLLECTION}/${encodeURIComponent(webhookId)}/deliveries`
const recoveriesOf = (webhookId: string) => `${COLLECTION}/${encodeURIComponent(webhookId)}/recoveries`

/** `eventTypes`: GET /v1/webhook-event-types's list of the API served (servedApi). */
export const WebhooksLive = (api: ServedApi, eventTypes: ReadonlyArray<JsonObject>) =>
  HttpApiBuilder.group(api, "webhooks", (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      return handleCollection(handlers, wholeCollectionHandlers(idempotent, COLLECTION, engine.webhooks))
        .handle("delete", deleteRecord(engine.webhooks.delete))
        .handle("deliveries", ({ params, request }) =>
          Effect.gen(function* () {
            const query = yield* readQuery(request, "all")
            return respond(page(yield* engine.webhooks.deliveries(yield* Caller, params.id, query)))
          })
        )
        .handle("delivery", ({ params, request }) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            return respond(record(yield* engine.webhooks.delivery(yield* Caller, params.id, params.delivery_id)))
          })
        )
        .handle("replay", ({ params, request }) =>
          postedAction(idempotent, request, (ctx) =>
            Effect.map(unconditional(engine.webhooks.replay(ctx, params.id, params.delivery_id)), (delivery) =>
              record(delivery, { status: 202, location: locationOf(deliveriesOf(params.id), delivery) })
            )
          )
        )
        .handleRaw("recover", ({ params, request }) =>
          postedJson(idempotent, request, (ctx, body) =>
            Effect.map(unconditional(engine.webhooks.recover(ctx, params.id, body)), (job) =>
              record(job, { status: 202, location: locationOf(recoveriesOf(params.id), job) })
            )
          )
        )
        .handle("recovery", ({ params, request }) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            return respond(record(yield* engine.webhooks.recovery(yield* Caller, params.id, params.job_id)))
          })
        )
        .handle("test", ({ params, request }) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            return respond(json(yield* engine.webhooks.test(yield* Caller, params.id)))
          })
        )
        .handle("eventTypes", ({ request }) =>
          Effect.gen(function* () {
            yield* readQuery(request, [])
            return respond(page({ data: eventTypes, next_cursor: null }))
          })
        )
    })
  )
