import type { JsonObject } from "../json.js"
import type { Decimal } from "../money.js"
import type { PipelineInfo } from "../pipeline/decider.js"
import { addAmount, meanDays, moneyJson } from "./figureMath.js"
import { bigintOf, countOf, textOf } from "./rows.js"

/** Count and money of a set of deals, as the summary answers them. */
interface Totals {
  count: number
  entered: bigint
  readonly value: Map<string, Decimal>
  readonly weighted: Map<string, Decimal>
}

const totals = (): Totals => ({ count: 0, entered: 0n, value: new Map(), weighted: new Map() })

const add = (into: Totals, row: JsonObject) => {
  into.count += countOf(row, "count")
  into.entered += bigintOf(row, "entered_ms")
  addAmount(into.value, textOf(row, "currency"), textOf(row, "value"))
  addAmount(into.weighted, textOf(row, "currency"), textOf(row, "weighted"))
}

/**
 * `GET /v1/pipelines/:id/summary` from the Standing rows of its deals (storage/figures.ts), as of
 * `instant` (epoch milliseconds): every stage in position order (zeros included), each with its
 * deals' count, value and weighted value per currency and the mean days since they entered it;
 * `open` the same over the deals whose status is open.
 */
export const summaryAnswer = (pipeline: PipelineInfo, instant: number, rows: ReadonlyArray<JsonObject>): JsonObject => {
  const byStage = new Map(pipeline.stages.map((stage) => [stage.id, totals()]))
  const open = totals()
  for (const row of rows) {
    const stage = byStage.get(textOf(row, "stage_id") ?? "")
    if (stage !== undefined) add(stage, row)
    if (textOf(row, "status") === "open") add(open, row)
  }
  const stages = [...pipeline.stages]
    .sort((a, b) => a.position - b.position)
    .map((stage) => {
      const t = byStage.get(stage.id)!
      return {
        stage_id: stage.id,
        count: t.count,
        value: moneyJson(t.value),
        weighted_value: moneyJson(t.weighted),
        average_days_in_stage: meanDays(BigInt(t.count) * BigInt(instant) - t.entered, t.count)
      }
    })
  return {
    pipeline_id: pipeline.id,
    as_of: new Date(instant).toISOString(),
    stages,
    open: { count: open.count, value: moneyJson(open.value), weighted_value: moneyJson(open.weighted) }
  }
}
