import { Clock, Effect } from "effect"
import type { DomainEvent, NewEvent } from "../../storage/events.js"
import type { RequestContext } from "../contract/Engine.js"
import { RecordTypes } from "../../record/plugin.js"
import { type RecordTypeSet, recordTypeSet } from "../../record/recordTypeSet.js"
import { DeliveryQueue, type DeliveryQueueService } from "../../storage/DeliveryQueue.js"
import { Storage, type StorageService } from "../../storage/Storage.js"
import { InlineProjections, inlineRefusal } from "../../storage/inlineProjection.js"
import { withInlineProjections } from "./inlineProjections.js"
import { Ids, type IdsService } from "../contract/Ids.js"
import { followSettingsChanges, makeSettingsCache, type SettingsCache } from "./settings.js"
import { makeStreamStates, type StreamStates } from "./streamStates.js"
import { WebhookConfig, type WebhookConfigService } from "../contract/WebhookConfig.js"
import { WebhookTransport, type WebhookTransportService } from "../contract/WebhookTransport.js"

/** The services every engine module works with, captured once when the engine is made. */
export interface EngineDeps {
  /** The storage, its commits carrying the inline projections in the InlineProjections context. */
  readonly storage: StorageService
  readonly ids: IdsService
  readonly queue: DeliveryQueueService
  readonly webhooks: {
    readonly config: WebhookConfigService
    readonly transport: WebhookTransportService
  }
  /** The stream states this engine decided on last (see streamStates.ts). */
  readonly states: StreamStates
  /** The workspaces' settings this engine read (see settings.ts). */
  readonly settings: SettingsCache
  /** The record types it serves: the built-ins and the plug-ins in the RecordTypes context. */
  readonly recordTypes: RecordTypeSet
}

export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/**
 * Gathers the engine's services once, so modules receive plain objects, with the engine's own caches.
 * `listen`: follow the storage's settings changes while the scope lasts (one listening connection on
 * PostgreSQL); the delivery worker, which reads no settings, does not.
 */
export const makeEngineDeps = (options: { readonly listen: boolean }) =>
  Effect.gen(function* () {
    const recordTypes = recordTypeSet(yield* RecordTypes)
    const projections = yield* InlineProjections
    const stored = yield* Storage
    const refusal = inlineRefusal(projections, stored.inlineTarget)
    if (refusal !== null) return yield* Effect.die(new Error(refusal))
    const storage = withInlineProjections(stored, projections, recordTypes)
    const settings = makeSettingsCache()
    if (options.listen) yield* followSettingsChanges(storage, settings)
    return {
      storage,
      ids: yield* Ids,
      queue: yield* DeliveryQueue,
      webhooks: { config: yield* WebhookConfig, transport: yield* WebhookTransport },
      states: makeStreamStates(),
      settings,
      recordTypes
    } satisfies EngineDeps
  })

export const engineDeps = makeEngineDeps({ listen: true })

/** Decided events made ready to append: each gets its public `evt_` id and who asked for it. */
export const withMetadata = (deps: EngineDeps, ctx: RequestContext, events: ReadonlyArray<DomainEvent>): Effect.Effect<Array<NewEvent>> =>
  Effect.forEach(events, (event) =>
    Effect.map(
      deps.ids.make("evt"),
      (eventId): NewEvent => ({
        type: event.type,
        data: event.data,
        metadata: { workspaceId: ctx.workspaceId, eventId, requestId: ctx.requestId, actor: ctx.actor }
      })
    )
  )
