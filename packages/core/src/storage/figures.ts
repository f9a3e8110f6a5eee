import type { JsonObject } from "../json.js"
import type { Collection, StoredDocument } from "./documents.js"

/**
 * The aggregates the pipeline figures are made of (analytics/), over the figure documents a deal's
 * commits write (deal/figureDocuments.ts: `deal_standing`, `stage_change`), live ones only. A
 * storage answers one as queryDocuments does a DocumentQuery, on the collection named in each,
 * each row a document whose `data` is the row below: so both storages compute them where the
 * documents are (PostgreSQL over the tables' covering indexes), and only the few rows travel.
 * Sums of money are exact decimals as text (PostgreSQL's numeric); sums of milliseconds are
 * integers as text; times are epoch milliseconds, windows `[from, to)`.
 */

/** The deals of one pipeline, or of all (null), of one owner or of all (null). */
interface Scope {
  readonly ownerId: string | null
}

/** Each stage's probability: a deal without one of its own is weighted with its stage's. */
export interface StageProbability {
  readonly stageId: string
  readonly probability: number
}

/**
 * `deal_standing`: the pipeline's deals grouped by stage, status and currency. Row: `{stage_id,
 * status, currency, count, value, weighted, entered_ms}`: `value` the sum of their values (null
 * when none has one), `weighted` the sum of value × probability over those with both, `entered_ms`
 * the sum of their stage_entered_at.
 */
export interface StandingFigures extends Scope {
  readonly _tag: "Standing"
  readonly pipelineId: string
  readonly probabilities: ReadonlyArray<StageProbability>
}

/**
 * `deal_standing`: the pipeline's won and lost deals closed in the window, by status. Row:
 * `{status, count, cycle_ms}`: `cycle_ms` the sum of closed − created.
 */
export interface ClosedFigures extends Scope {
  readonly _tag: "Closed"
  readonly pipelineId: string
  readonly from: number
  readonly to: number
}

/** A stage of the pipeline, and what entering it counts as for advancing (analytics/conversion.ts). */
export interface StageRank {
  readonly stageId: string
  readonly position: number
  /** Higher than a stage's position: entering this one advances a deal from that one. */
  readonly rank: number
}

/**
 * `stage_change`: per stage of `stages`, the deals that entered it in the window (`entered`), and
 * of those the ones that later (by stream version), still in the window, entered a stage whose
 * rank is above its position (`advanced`). Row: `{stage_id, entered, advanced}`.
 */
export interface EntryFigures extends Scope {
  readonly _tag: "Entries"
  readonly pipelineId: string
  readonly from: number
  readonly to: number
  readonly stages: ReadonlyArray<StageRank>
}

/**
 * `stage_change`: the stays in the pipeline's stages `stageIds` that ended in the window, by stage.
 * Row: `{stage_id, count, total_ms, median_ms}`.
 */
export interface StayFigures extends Scope {
  readonly _tag: "Stays"
  readonly pipelineId: string
  readonly from: number
  readonly to: number
  readonly stageIds: ReadonlyArray<string>
}

/**
 * `deal_standing`: open deals by the month of their expected_close_date within `[fromDate,
 * toDate)` (and those without one, month null), won deals by the month (UTC) of closed_at within
 * `[from, to)`, by currency. Row: `{status, month, currency, count, value, weighted}`.
 */
export interface ForecastFigures extends Scope {
  readonly _tag: "Forecast"
  readonly pipelineId: string | null
  readonly fromDate: string
  readonly toDate: string
  readonly from: number
  readonly to: number
  readonly probabilities: ReadonlyArray<StageProbability>
}

export type FiguresQuery = StandingFigures | ClosedFigures | EntryFigures | StayFigures | ForecastFigures

export const isFiguresQuery = (query: object): query is FiguresQuery => "_tag" in query

/** The rows of a figures query as queryDocuments answers them: documents numbered in row order. */
export const figureDocuments = (
  collection: Collection,
  workspaceId: string,
  rows: ReadonlyArray<JsonObject>
): ReadonlyArray<StoredDocument> => rows.map((data, i) => ({ collection, workspaceId, id: String(i), version: 0, deletedAt: null, data }))
