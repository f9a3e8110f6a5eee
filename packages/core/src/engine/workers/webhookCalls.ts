import { Clock, Effect, Schema } from "effect"
import type { DeliveryRequest } from "../../delivery/index.js"
import type { StoredDocument } from "../../storage/documents.js"
import { WebhookDocument } from "../../webhook/index.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"

/**
 * What the delivery worker, the recovery runner and the test endpoint share about calling a
 * webhook: its document as they read it, the context their own commands run under, and one POST
 * under the host's transport rules, timed as an attempt is.
 */

/** The engine's own work for webhooks, in a workspace: no request, no API key. */
export const webhookSystemContext = (workspaceId: string): RequestContext => ({ workspaceId, requestId: null, actor: "system:webhooks" })

/** A webhook's document as the engine wrote it: one that does not decode is a defect. */
export const webhookDocument = (doc: StoredDocument) => Effect.orDie(Schema.decodeUnknownEffect(WebhookDocument)(doc.data))

/**
 * POSTs a request made for the moment it starts (the timestamp is part of what is signed), with
 * the configured timeout and target rules, and says what came back and how long it took.
 */
export const timedPost = (deps: EngineDeps, requestAt: (startedMillis: number) => DeliveryRequest) =>
  Effect.gen(function* () {
    const { config, transport } = deps.webhooks
    const started = yield* Clock.currentTimeMillis
    const answer = yield* Effect.result(
      transport.post({
        ...requestAt(started),
        timeoutMillis: config.timeoutMillis,
        allowInsecure: config.allowInsecure
      })
    )
    return { answer, durationMs: (yield* Clock.currentTimeMillis) - started }
  })
