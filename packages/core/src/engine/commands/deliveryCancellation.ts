import { Effect, Result } from "effect"
import { deliveryAggregate } from "../../delivery/index.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { decide } from "./decide.js"
import { readState } from "../base/streamStates.js"

/**
 * The cancellation of one delivery as part of another command's commit (a webhook's deletion, a
 * purge): its event at the stream's current version and the document it projects to; null when the
 * delivery is no longer pending.
 */
export const deliveryCancellation = (deps: EngineDeps, ctx: RequestContext, deliveryId: string, at: string) =>
  Effect.gen(function* () {
    const stream = yield* readState(deps.storage, deliveryAggregate, ctx, deliveryId)
    const cancelled = yield* Effect.result(
      decide(deps, deliveryAggregate, { stream, ctx, streamId: deliveryId }, { type: "CancelDelivery", id: deliveryId, at })
    )
    if (Result.isFailure(cancelled) || cancelled.success.fresh.length === 0) return null
    return { stream: cancelled.success.append, document: cancelled.success.documents[0]! }
  })
