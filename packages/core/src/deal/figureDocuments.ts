import { foldProjection, type StreamChange, type StreamRef } from "../aggregate.js"
import type { Projected } from "../decider.js"
import type { Json, JsonObject } from "../json.js"
import type { Collection, DocumentWrite } from "../storage/documents.js"
import type { DealEvent } from "./events.js"
import { projectDeal } from "./projection.js"

/**
 * What the pipeline figures (analytics/) are read from, written with the deal in the same commit,
 * so that a figure is an aggregate over indexed documents, never a walk of the log:
 *
 * - `deal_standing`, one per deal (its id): where the deal stands now, the fields the figures sum
 *   and group by, times as epoch milliseconds;
 * - `stage_change`, one per stage the deal entered, its creation included (the creation's under the
 *   deal's id, a move's under its timeline entry's): when, from which stage entered when, into
 *   which, and the deal's stream version then, which orders a deal's entries however close in time.
 *
 * Both are in the trash while the deal is and leave with its purge, so deleted deals count nowhere
 * and a restore brings them back. A stage change carries the deal's owner as it is now, so a change
 * of owner, a delete, a restore or a purge rewrites every one of them: those need the deal's history
 * (dealFiguresNeedHistory); every other command writes its own entry, if it moves the deal, and the
 * standing. Neither is ever shown: the field names are this file's.
 */
export const DEAL_STANDING: Collection = "deal_standing"
export const STAGE_CHANGE: Collection = "stage_change"

const millisOf = (value: Json | undefined): number | null => (typeof value === "string" ? Date.parse(value) : null)
const textOf = (value: Json | undefined): string | null => (typeof value === "string" ? value : null)
const numberOf = (value: Json | undefined): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null)

/** A deal's standing, from its document. */
export const standingOf = (deal: JsonObject): JsonObject => ({
  pipeline_id: textOf(deal["pipeline_id"]),
  stage_id: textOf(deal["stage_id"]),
  status: textOf(deal["status"]) ?? "open",
  owner_id: textOf(deal["owner_id"]),
  value: numberOf(deal["value"]),
  currency: textOf(deal["currency"]),
  probability: numberOf(deal["probability"]),
  expected_close_date: textOf(deal["expected_close_date"]),
  created_ms: millisOf(deal["created_at"]),
  closed_ms: millisOf(deal["closed_at"]),
  entered_ms: millisOf(deal["stage_entered_at"])
})

/** A stage the deal entered, as its events say. */
interface Entry {
  readonly id: string
  readonly version: number
  /** Everything but the owner, which is the deal's now. */
  readonly data: JsonObject
}

/** Where the deal is before the events, read off its document (null before its creation). */
interface Place {
  readonly pipeline_id: string | null
  readonly stage_id: string | null
  readonly entered_ms: number | null
}

const placeOf = (deal: JsonObject | null): Place =>
  deal === null
    ? { pipeline_id: null, stage_id: null, entered_ms: null }
    : {
        pipeline_id: textOf(deal["pipeline_id"]),
        stage_id: textOf(deal["stage_id"]),
        entered_ms: millisOf(deal["stage_entered_at"]) ?? millisOf(deal["created_at"])
      }

/** The stages `events` enter, the first of them at stream version `firstVersion`, from `from`. */
const entriesOf = (dealId: string, events: ReadonlyArray<DealEvent>, firstVersion: number, from: Place): ReadonlyArray<Entry> => {
  const entries: Array<Entry> = []
  let place = from
  events.forEach((event, i) => {
    const version = firstVersion + i
    if (event.type === "deal.created") {
      const at = Date.parse(event.data.at)
      const to = { pipeline_id: textOf(event.data.fields["pipeline_id"]), stage_id: textOf(event.data.fields["stage_id"]), entered_ms: at }
      entries.push({ id: dealId, version, data: entryData(dealId, version, at, null, to) })
      place = to
    } else if (event.type === "deal.stage_changed") {
      const at = Date.parse(event.data.at)
      const to = { pipeline_id: event.data.to_pipeline_id, stage_id: event.data.to_stage_id, entered_ms: at }
      entries.push({ id: event.data.entry_id, version, data: entryData(dealId, version, at, place, to) })
      place = to
    }
  })
  return entries
}

const entryData = (dealId: string, version: number, at: number, from: Place | null, to: Place): JsonObject => ({
  deal_id: dealId,
  deal_version: version,
  at_ms: at,
  from_pipeline_id: from?.pipeline_id ?? null,
  from_stage_id: from?.stage_id ?? null,
  from_entered_ms: from?.entered_ms ?? null,
  to_pipeline_id: to.pipeline_id,
  to_stage_id: to.stage_id
})

const upsert = (
  collection: Collection,
  workspaceId: string,
  id: string,
  version: number,
  deletedAt: string | null,
  data: JsonObject
): DocumentWrite => ({
  _tag: "Upsert",
  collection,
  workspaceId,
  id,
  version,
  deletedAt,
  uniqueKey: null,
  searchWords: [],
  data
})

/** The events whose figure documents are every stage change of the deal, not only their own. */
export const dealFiguresNeedHistory = (fresh: ReadonlyArray<DealEvent>): boolean =>
  fresh.some(
    (event) =>
      event.type === "deal.deleted" ||
      event.type === "deal.restored" ||
      event.type === "deal.purged" ||
      (event.type === "deal.updated" && Object.hasOwn(event.data.changed, "owner_id"))
  )

/** The deal's figure documents after these events (see the top of this file). */
export const dealFigureDocuments = ({ id, workspaceId }: StreamRef, change: StreamChange<DealEvent>): ReadonlyArray<DocumentWrite> => {
  const { all, before, fresh, version } = change
  const after: Projected | null = foldProjection(projectDeal, fresh, before)
  const whole = all !== undefined
  const entries = whole
    ? entriesOf(id, all, 1, placeOf(null))
    : entriesOf(id, fresh, version - fresh.length + 1, placeOf(before?.data ?? null))
  if (after === null) {
    return [
      { _tag: "Remove", collection: DEAL_STANDING, workspaceId, id },
      ...entries.map((entry): DocumentWrite => ({ _tag: "Remove", collection: STAGE_CHANGE, workspaceId, id: entry.id }))
    ]
  }
  const owner = textOf(after.data["owner_id"])
  return [
    upsert(DEAL_STANDING, workspaceId, id, version, after.deletedAt, standingOf(after.data)),
    ...entries.map((entry) =>
      upsert(STAGE_CHANGE, workspaceId, entry.id, entry.version, after.deletedAt, { ...entry.data, owner_id: owner })
    )
  ]
}
