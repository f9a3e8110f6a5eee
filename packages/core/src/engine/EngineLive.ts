import { Effect, Layer, type Scope } from "effect"
import type { DeliveryQueue } from "../storage/DeliveryQueue.js"
import type { Storage } from "../storage/Storage.js"
import { exportRecords } from "./views/exportRecords.js"
import { aggregates } from "./contract/aggregates.js"
import { makeActivities } from "./records/activities.js"
import { makeApiKeys } from "./records/apiKeys.js"
import { makeCompanies } from "./records/companies.js"
import { makeContacts } from "./records/contacts.js"
import { makeCustomFields } from "./records/customFields.js"
import { makeDeals } from "./records/deals.js"
import { makeFeed } from "./feed/feed.js"
import { makeConsumers } from "./feed/consume.js"
import { ConsumerCheckpoints } from "../storage/ConsumerCheckpoints.js"
import { engineDeps } from "./base/deps.js"
import { DealRules, Engine, type EngineService } from "./contract/Engine.js"
import { makeIdempotency } from "./commands/idempotency.js"
import type { Ids } from "./contract/Ids.js"
import { makePipelineFigures } from "./records/pipelineFigures.js"
import { makePipelines } from "./records/pipelines.js"
import { makeMerges } from "./records/mergeables.js"
import { makePrivacy } from "./records/privacy.js"
import { pluginKind } from "./records/pluginRecords.js"
import { makeRecordService } from "./records/recordService.js"
import { pluginAggregate } from "../record/pluginAggregate.js"
import { makePurge } from "./workers/purge.js"
import { makeTrash } from "./records/trash.js"
import type { WebhookConfig } from "./contract/WebhookConfig.js"
import { makeWebhooks } from "./records/webhooks.js"
import type { WebhookTransport } from "./contract/WebhookTransport.js"
import { makeWorkspaces } from "./records/workspace.js"

export type EngineRequirements = Storage | Ids | DeliveryQueue | WebhookConfig | WebhookTransport

/**
 * The engine's public surface: each part is what its module makes, nothing forwarded by hand. It
 * follows the storage's settings changes while its scope lasts, and decides deal commands with the
 * DealRules in context when it is built.
 */
export const makeEngine: Effect.Effect<EngineService, never, EngineRequirements | Scope.Scope> = Effect.gen(function* () {
  const deps = yield* engineDeps
  const dealRules = yield* DealRules
  const plugins = deps.recordTypes.plugins.map((plugin) => ({ plugin, aggregate: pluginAggregate(plugin) }))
  const records = new Map(plugins.map(({ aggregate, plugin }) => [plugin.name, makeRecordService(deps, pluginKind(plugin, aggregate))]))
  const figures = makePipelineFigures(deps)
  const people = makeContacts(deps)
  const [served, deals, firms, activities] = [
    { ...people, ...makePrivacy(deps, people) },
    { ...makeDeals(deps, dealRules), forecast: figures.forecast },
    makeCompanies(deps),
    makeActivities(deps)
  ]
  const merges = makeMerges(deps, { contact: served, deal: deals, company: firms, activity: activities })
  const contacts = { ...served, ...merges.contact }
  const companies = { ...firms, ...merges.company }
  const shown = new Map([
    ["contact", contacts.shown],
    ["deal", deals.shown],
    ["company", companies.shown],
    ["activity", activities.shown],
    ...[...records].map(([name, service]) => [name, service.shown] as const)
  ])
  const feed = makeFeed(deps, yield* Effect.scope)
  const consumers = makeConsumers(
    feed.list,
    deps.storage.feedChanges,
    yield* Effect.serviceOption(ConsumerCheckpoints),
    yield* Effect.scope
  )
  return Engine.of({
    contacts,
    deals,
    companies,
    activities,
    records,
    pipelines: { ...makePipelines(deps, makeWorkspaces(deps)), summary: figures.summary, conversion: figures.conversion },
    customFields: makeCustomFields(deps),
    trash: makeTrash(deps, shown),
    webhooks: makeWebhooks(deps),
    events: feed,
    idempotency: makeIdempotency(deps),
    apiKeys: makeApiKeys(deps),
    purgeExpired: makePurge(deps, [...aggregates, ...plugins.map(({ aggregate }) => aggregate)]),
    ping: deps.storage.ping,
    exportRecords: (ctx, list, params, encode) => exportRecords(deps.storage, ctx, list, params, encode),
    position: deps.storage.position,
    ...consumers
  })
})

/** The engine over whatever storage, delivery queue, ids and webhook transport are provided. */
export const EngineLive: Layer.Layer<Engine, never, EngineRequirements> = Layer.effect(Engine, makeEngine)
