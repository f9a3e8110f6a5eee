import { Effect, Result } from "effect"
import { type DeliveryEvent, deliveryDecider, projectDelivery } from "../delivery/index.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { StreamAppend } from "../storage/Storage.js"
import { type EngineDeps, withMetadata } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { documentWrite, foldProjection } from "./execute.js"

/**
 * The cancellation of one delivery as part of another command's commit (a webhook's deletion, a
 * purge): its event at the stream's current version and the document it projects to; null when the
 * delivery is no longer pending.
 */
export const deliveryCancellation = (deps: EngineDeps, ctx: RequestContext, deliveryId: string, at: string) =>
  Effect.gen(function*() {
    const stored = yield* deps.storage.readStream(deliveryId)
    const history = stored as unknown as ReadonlyArray<DeliveryEvent>
    const state = history.reduce(deliveryDecider.evolve, deliveryDecider.initialState)
    const decided = deliveryDecider.decide({ type: "CancelDelivery", id: deliveryId, at }, state)
    if (Result.isFailure(decided) || decided.success.length === 0) return null
    const events = yield* withMetadata(deps, ctx, decided.success)
    const all = [...history, ...decided.success]
    const stream: StreamAppend = { streamId: deliveryId, expectedVersion: stored.length, events }
    const document: DocumentWrite = documentWrite(
      "delivery",
      ctx.workspaceId,
      deliveryId,
      all.length,
      foldProjection(projectDelivery, all)
    )
    return { stream, document }
  })
