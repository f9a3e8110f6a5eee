import { Effect } from "effect"
import { companyIdOf, showingLiveCompany } from "../../deal/companyLink.js"
import { contactIdsOf, showingLiveContacts } from "../../deal/contactLinks.js"
import { weightedValueOf } from "../../deal/weightedValue.js"
import type { StorageUnavailable } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { PipelineInfo } from "../../pipeline/decider.js"
import type { FieldCatalog } from "../../query/fields.js"
import type { EngineDeps } from "../base/deps.js"
import { settingsOf } from "../base/settings.js"
import type { RequestContext } from "../contract/Engine.js"
import { companyStates } from "./companyViews.js"
import { contactStates } from "./contactViews.js"
import { visibleFields } from "../base/reads.js"

/** A stage's probability as its pipeline has it; null when unset or unknown. */
export type StageProbability = (pipelineId: string, stageId: string) => number | null

/** A probability lookup over these pipelines (each as it stands, or stood at an instant). */
export const stageProbabilityIn =
  (pipelines: ReadonlyArray<PipelineInfo | null>): StageProbability =>
  (pipelineId, stageId) =>
    pipelines.find((p) => p?.id === pipelineId)?.stages.find((s) => s.id === stageId)?.probability ?? null

/** The stages' probabilities of the pipelines these deals are in, as the workspace's settings hold them now. */
export const stageProbabilities = (
  deps: EngineDeps,
  ctx: RequestContext,
  deals: ReadonlyArray<JsonObject>
): Effect.Effect<StageProbability, StorageUnavailable> => {
  const ids = [...new Set(deals.flatMap((deal) => (typeof deal["pipeline_id"] === "string" ? [deal["pipeline_id"]] : [])))]
  if (ids.length === 0) return Effect.succeed(() => null)
  // The settings as this host keeps them: a read has just checked them (its catalogs), a write
  // decided on them; only a cold cache reads them.
  const settings = settingsOf(deps.storage, deps.settings, ctx, false)
  return Effect.map(Effect.forEach(ids, settings.pipeline), stageProbabilityIn)
}

/** Fields deals gained later, which documents written before then lack: shown as null, as every unset field is. */
const ADDED_LATER = ["probability", "closed_at", "lost_reason", "stage_entered_at"] as const

/**
 * A deal as shown from its fields: its visible fields, those it lacks as null, then the derived
 * `weighted_value` (deal/weightedValue.ts) with its stage's probability.
 */
export const dealShown = (data: JsonObject, catalog: FieldCatalog, probability: StageProbability): JsonObject => {
  const filled = ADDED_LATER.every((key) => Object.hasOwn(data, key))
    ? data
    : { ...Object.fromEntries(ADDED_LATER.map((key) => [key, null])), ...data }
  const stage = probability(String(data["pipeline_id"]), String(data["stage_id"]))
  return { ...visibleFields(filled, catalog), weighted_value: weightedValueOf(data, stage) }
}

/**
 * Deals as the API shows them (a get, a list page, an expand, the trash, a write's answer, a
 * webhook payload): dealShown, with `contact_ids` without contacts that are not live and
 * `company_id` null when its company is not, all read for all the deals at once.
 */
export const dealViews = (
  deps: EngineDeps,
  ctx: RequestContext,
  deals: ReadonlyArray<JsonObject>,
  catalog: FieldCatalog
): Effect.Effect<ReadonlyArray<JsonObject>, StorageUnavailable> =>
  Effect.map(
    Effect.all(
      [
        contactStates(deps, ctx, deals.flatMap(contactIdsOf)),
        companyStates(
          deps,
          ctx,
          deals.flatMap((deal) => companyIdOf(deal) ?? [])
        ),
        stageProbabilities(deps, ctx, deals)
      ],
      { concurrency: 3 }
    ),
    ([contacts, companies, probability]) =>
      deals.map((data) => dealShown(showingLiveCompany(showingLiveContacts(data, contacts.live), companies.live), catalog, probability))
  )

export const dealView = (deps: EngineDeps, ctx: RequestContext, deal: JsonObject, catalog: FieldCatalog) =>
  Effect.map(dealViews(deps, ctx, [deal], catalog), ([view]) => view!)
