import { Effect, Layer, type Scope } from "effect"
import type { DeliveryQueue } from "../storage/DeliveryQueue.js"
import type { Storage } from "../storage/Storage.js"
import { aggregates } from "./aggregates.js"
import { makeActivities } from "./activities.js"
import { makeApiKeys } from "./apiKeys.js"
import { makeCompanies } from "./companies.js"
import { makeContacts } from "./contacts.js"
import { makeCustomFields } from "./customFields.js"
import { makeDeals } from "./deals.js"
import { makeFeed } from "./feed.js"
import { engineDeps } from "./deps.js"
import { DealRules, Engine, type EngineService } from "./Engine.js"
import { makeIdempotency } from "./idempotency.js"
import type { Ids } from "./Ids.js"
import { makePipelines } from "./pipelines.js"
import { makePurge } from "./purge.js"
import { makeTrash } from "./trash.js"
import type { WebhookConfig } from "./WebhookConfig.js"
import { makeWebhooks } from "./webhooks.js"
import type { WebhookTransport } from "./WebhookTransport.js"
import { makeWorkspaces } from "./workspace.js"

export type EngineRequirements = Storage | Ids | DeliveryQueue | WebhookConfig | WebhookTransport

/**
 * The engine's public surface: each part is what its module makes, nothing forwarded by hand. It
 * follows the storage's settings changes while its scope lasts, and decides deal commands with the
 * DealRules in context when it is built.
 */
export const makeEngine: Effect.Effect<EngineService, never, EngineRequirements | Scope.Scope> = Effect.gen(function*() {
  const deps = yield* engineDeps
  const dealRules = yield* DealRules
  return Engine.of({
    contacts: makeContacts(deps),
    deals: makeDeals(deps, dealRules),
    companies: makeCompanies(deps),
    activities: makeActivities(deps),
    pipelines: makePipelines(deps, makeWorkspaces(deps)),
    customFields: makeCustomFields(deps),
    trash: makeTrash(deps),
    webhooks: makeWebhooks(deps),
    events: makeFeed(deps, yield* Effect.scope),
    idempotency: makeIdempotency(deps),
    apiKeys: makeApiKeys(deps),
    purgeExpired: makePurge(deps, aggregates),
    ping: deps.storage.ping
  })
})

/** The engine over whatever storage, delivery queue, ids and webhook transport are provided. */
export const EngineLive: Layer.Layer<Engine, never, EngineRequirements> = Layer.effect(Engine, makeEngine)
