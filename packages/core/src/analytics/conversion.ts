import type { JsonObject } from "../json.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import type { StageRank } from "../storage/figures.js"
import { days, meanDays, rate } from "./figureMath.js"
import type { FigureWindow } from "./params.js"
import { bigintOf, countOf, textOf } from "./rows.js"

/** Above every position a stage can have (at most 50 stages): entering a won stage advances from any. */
export const WON_RANK = 1_000_000

/**
 * What entering each stage counts as for advancing (API.md: "entered an open stage of higher
 * position or a won stage; entering a lost stage never counts as advancing"): an open stage ranks
 * at its position, a won one above all, a lost one below all; a deal advanced from a stage when it
 * later entered one ranked above that stage's position. Positions and outcomes are the pipeline's
 * as it is now.
 */
export const stageRanks = (pipeline: PipelineInfo): ReadonlyArray<StageRank> =>
  [...pipeline.stages]
    .sort((a, b) => a.position - b.position)
    .map((stage) => ({
      stageId: stage.id,
      position: stage.position,
      rank: stage.outcome === "won" ? WON_RANK : stage.outcome === "lost" ? -1 : stage.position
    }))

const byStage = (rows: ReadonlyArray<JsonObject>) => new Map(rows.map((row) => [textOf(row, "stage_id") ?? "", row]))

/**
 * `GET /v1/pipelines/:id/conversion` from the rows of its Entries, Stays and Closed figures over
 * the window (storage/figures.ts): per stage in position order, the deals that entered it, those
 * that advanced, the rate, and the mean and median days of the stays in it that ended in the
 * window; then the won and lost deals closed in the window, the win rate and the mean days from
 * creation to close of the won ones.
 */
export const conversionAnswer = (
  pipeline: PipelineInfo,
  window: FigureWindow,
  figures: {
    readonly entries: ReadonlyArray<JsonObject>
    readonly stays: ReadonlyArray<JsonObject>
    readonly closed: ReadonlyArray<JsonObject>
  }
): JsonObject => {
  const entries = byStage(figures.entries)
  const stays = byStage(figures.stays)
  const closed = new Map(figures.closed.map((row) => [textOf(row, "status"), row]))
  const won = closed.get("won")
  const wonCount = won === undefined ? 0 : countOf(won, "count")
  const lostCount = closed.has("lost") ? countOf(closed.get("lost")!, "count") : 0
  return {
    pipeline_id: pipeline.id,
    from: window.from,
    to: window.to,
    stages: stageRanks(pipeline).map(({ stageId }) => {
      const entry = entries.get(stageId)
      const stay = stays.get(stageId)
      const entered = entry === undefined ? 0 : countOf(entry, "entered")
      const advanced = entry === undefined ? 0 : countOf(entry, "advanced")
      const ended = stay === undefined ? 0 : countOf(stay, "count")
      return {
        stage_id: stageId,
        entered,
        advanced,
        conversion_rate: rate(advanced, entered),
        average_days: stay === undefined ? null : meanDays(bigintOf(stay, "total_ms"), ended),
        median_days: stay === undefined || ended === 0 ? null : days(Number(stay["median_ms"]))
      }
    }),
    won: wonCount,
    lost: lostCount,
    win_rate: rate(wonCount, wonCount + lostCount),
    average_cycle_days: won === undefined ? null : meanDays(bigintOf(won, "cycle_ms"), wonCount)
  }
}
