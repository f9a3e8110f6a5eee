import { Effect, Layer } from "effect"
import { makeApiKeys } from "./apiKeys.js"
import type { DeliveryQueue } from "../storage/DeliveryQueue.js"
import type { Storage } from "../storage/Storage.js"
import { makeContacts } from "./contacts.js"
import { makeCustomFields } from "./customFields.js"
import { makeDeals } from "./deals.js"
import { Engine, type EngineService } from "./Engine.js"
import { makeIdempotency } from "./idempotency.js"
import type { Ids } from "./Ids.js"
import { engineDeps } from "./deps.js"
import type { WebhookConfig } from "./WebhookConfig.js"
import type { WebhookTransport } from "./WebhookTransport.js"
import { makeWebhooks } from "./webhooks.js"
import { makePipelines } from "./pipelines.js"
import { makePurge } from "./purge.js"
import { makeTrash } from "./trash.js"
import { makeWorkspaces } from "./workspace.js"

export type EngineRequirements = Storage | Ids | DeliveryQueue | WebhookConfig | WebhookTransport

export const makeEngine: Effect.Effect<EngineService, never, EngineRequirements> = Effect.gen(function*() {
  const deps = yield* engineDeps
  const workspaces = makeWorkspaces(deps)
  const customFields = makeCustomFields(deps)
  const contacts = makeContacts(deps, customFields)
  const pipelines = makePipelines(deps, workspaces)
  const deals = makeDeals(deps, contacts, pipelines)
  return Engine.of({
    contacts: {
      list: contacts.list,
      get: contacts.get,
      create: contacts.create,
      update: contacts.update,
      delete: contacts.delete,
      restore: contacts.restore
    },
    deals: {
      list: deals.list,
      get: deals.get,
      create: deals.create,
      update: deals.update,
      moveStage: deals.moveStage,
      delete: deals.delete,
      restore: deals.restore,
      timeline: deals.timeline
    },
    pipelines: {
      list: pipelines.list,
      get: pipelines.get,
      create: pipelines.create,
      update: pipelines.update
    },
    customFields: { list: customFields.list, create: customFields.create, delete: customFields.delete },
    trash: makeTrash(deps, contacts),
    webhooks: makeWebhooks(deps),
    idempotency: makeIdempotency(deps),
    apiKeys: makeApiKeys(deps),
    purgeExpired: makePurge(deps, contacts, deals),
    ping: deps.storage.ping
  })
})

/** The engine over whatever storage, delivery queue, ids and webhook transport are provided. */
export const EngineLive: Layer.Layer<Engine, never, EngineRequirements> = Layer.effect(Engine, makeEngine)
