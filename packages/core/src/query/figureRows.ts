import type { Json, JsonObject } from "../json.js"
import { addDecimal, type Decimal, decimalOf, decimalText, mulDecimal, ZERO } from "../money.js"
import type { QueriedRow } from "./ast.js"
import type {
  ClosedFigures,
  EntryFigures,
  FiguresQuery,
  ForecastFigures,
  StageProbability,
  StandingFigures,
  StayFigures
} from "../storage/figures.js"

/**
 * A figures query (storage/figures.ts) answered over the documents themselves: what storage-memory
 * serves, and the meaning PostgreSQL's SQL (storage-pg's figures.ts) must match. `rows` are the
 * workspace's documents of the query's collection; those in the trash are left out here.
 */
export const figureRows = (query: FiguresQuery, rows: ReadonlyArray<QueriedRow>): ReadonlyArray<JsonObject> => {
  const live = rows.filter((row) => row.deletedAt === null).map((row) => row.data)
  switch (query._tag) {
    case "Standing":
      return standing(query, live)
    case "Closed":
      return closed(query, live)
    case "Entries":
      return entries(query, live)
    case "Stays":
      return stays(query, live)
    case "Forecast":
      return forecast(query, live)
  }
}

const text = (value: Json | undefined): string | null => (typeof value === "string" ? value : null)
const num = (value: Json | undefined): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null)
const ownedBy = (ownerId: string | null, data: JsonObject) => ownerId === null || data["owner_id"] === ownerId
const within = (value: number | null, from: number, to: number): value is number => value !== null && value >= from && value < to

/** Sums of one group: count, and exact sums of value and weighted value. */
interface MoneySums {
  count: number
  value: Decimal | null
  weighted: Decimal | null
}

const addMoney = (sums: MoneySums, data: JsonObject, probabilities: ReadonlyMap<string, number>) => {
  sums.count++
  const value = num(data["value"])
  if (value === null) return
  sums.value = addDecimal(sums.value ?? ZERO, decimalOf(value))
  const probability = num(data["probability"]) ?? probabilities.get(String(data["stage_id"])) ?? null
  if (probability !== null) sums.weighted = addDecimal(sums.weighted ?? ZERO, mulDecimal(decimalOf(value), decimalOf(probability)))
}

const moneyRow = (sums: MoneySums) => ({
  count: sums.count,
  value: sums.value === null ? null : decimalText(sums.value),
  weighted: sums.weighted === null ? null : decimalText(sums.weighted)
})

const probabilityMap = (probabilities: ReadonlyArray<StageProbability>) => new Map(probabilities.map((p) => [p.stageId, p.probability]))

/** Groups by a key made of the given parts, keeping the parts of each. */
const grouped = <A>(make: () => A) => {
  const groups = new Map<string, { readonly key: ReadonlyArray<string | null>; readonly sums: A }>()
  return {
    at: (key: ReadonlyArray<string | null>): A => {
      const slot = JSON.stringify(key)
      const found = groups.get(slot)
      if (found !== undefined) return found.sums
      const sums = make()
      groups.set(slot, { key, sums })
      return sums
    },
    all: () => [...groups.values()]
  }
}

const standing = (query: StandingFigures, docs: ReadonlyArray<JsonObject>): ReadonlyArray<JsonObject> => {
  const probabilities = probabilityMap(query.probabilities)
  const groups = grouped(() => ({ money: { count: 0, value: null, weighted: null } as MoneySums, entered: null as bigint | null }))
  for (const data of docs) {
    if (data["pipeline_id"] !== query.pipelineId || !ownedBy(query.ownerId, data)) continue
    const sums = groups.at([text(data["stage_id"]), text(data["status"]), text(data["currency"])])
    addMoney(sums.money, data, probabilities)
    const entered = num(data["entered_ms"])
    if (entered !== null) sums.entered = (sums.entered ?? 0n) + BigInt(entered)
  }
  return groups.all().map(({ key: [stage_id, status, currency], sums }) => ({
    stage_id: stage_id ?? null,
    status: status ?? null,
    currency: currency ?? null,
    ...moneyRow(sums.money),
    entered_ms: sums.entered === null ? null : sums.entered.toString()
  }))
}

const closed = (query: ClosedFigures, docs: ReadonlyArray<JsonObject>): ReadonlyArray<JsonObject> => {
  const groups = grouped(() => ({ count: 0, cycle: 0n }))
  for (const data of docs) {
    const status = text(data["status"])
    const closedAt = num(data["closed_ms"])
    if (data["pipeline_id"] !== query.pipelineId || !ownedBy(query.ownerId, data)) continue
    if ((status !== "won" && status !== "lost") || !within(closedAt, query.from, query.to)) continue
    const sums = groups.at([status])
    sums.count++
    sums.cycle += BigInt(closedAt - (num(data["created_ms"]) ?? closedAt))
  }
  return groups.all().map(({ key: [status], sums }) => ({ status: status ?? null, count: sums.count, cycle_ms: sums.cycle.toString() }))
}

const entries = (query: EntryFigures, docs: ReadonlyArray<JsonObject>): ReadonlyArray<JsonObject> => {
  const rank = new Map(query.stages.map((stage) => [stage.stageId, stage.rank]))
  // Per deal, per stage: the first version it entered the stage in the window, and the last
  // version it entered a stage ranked above the stage's position.
  const deals = new Map<string, Array<{ entered: number | null; above: number | null }>>()
  for (const data of docs) {
    if (data["to_pipeline_id"] !== query.pipelineId || !ownedBy(query.ownerId, data) || !within(num(data["at_ms"]), query.from, query.to))
      continue
    const dealId = String(data["deal_id"])
    const version = num(data["deal_version"]) ?? 0
    const stageId = text(data["to_stage_id"])
    const entryRank = stageId === null ? undefined : rank.get(stageId)
    const per = deals.get(dealId) ?? query.stages.map(() => ({ entered: null, above: null }))
    deals.set(dealId, per)
    query.stages.forEach((stage, i) => {
      const slot = per[i]!
      if (stageId === stage.stageId && (slot.entered === null || version < slot.entered)) slot.entered = version
      if (entryRank !== undefined && entryRank > stage.position && (slot.above === null || version > slot.above)) slot.above = version
    })
  }
  return query.stages.map((stage, i) => {
    let entered = 0
    let advanced = 0
    for (const per of deals.values()) {
      const slot = per[i]!
      if (slot.entered === null) continue
      entered++
      if (slot.above !== null && slot.above > slot.entered) advanced++
    }
    return { stage_id: stage.stageId, entered, advanced }
  })
}

/** The median of durations in milliseconds: the mean of the middle two when their number is even. */
const median = (values: Array<number>): number => {
  const sorted = values.sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const stays = (query: StayFigures, docs: ReadonlyArray<JsonObject>): ReadonlyArray<JsonObject> => {
  const groups = grouped(() => [] as Array<number>)
  const stageIds = new Set(query.stageIds)
  for (const data of docs) {
    const at = num(data["at_ms"])
    const entered = num(data["from_entered_ms"])
    const stageId = text(data["from_stage_id"])
    if (data["from_pipeline_id"] !== query.pipelineId || stageId === null || !stageIds.has(stageId) || entered === null) continue
    if (!ownedBy(query.ownerId, data) || !within(at, query.from, query.to)) continue
    groups.at([stageId]).push(at - entered)
  }
  return groups.all().map(({ key: [stage_id], sums }) => ({
    stage_id: stage_id ?? null,
    count: sums.length,
    total_ms: sums.reduce((total, d) => total + BigInt(d), 0n).toString(),
    median_ms: median(sums)
  }))
}

/** The month (`YYYY-MM`, UTC) of an instant in epoch milliseconds. */
export const monthOf = (millis: number): string => new Date(millis).toISOString().slice(0, 7)

const forecast = (query: ForecastFigures, docs: ReadonlyArray<JsonObject>): ReadonlyArray<JsonObject> => {
  const probabilities = probabilityMap(query.probabilities)
  const groups = grouped((): MoneySums => ({ count: 0, value: null, weighted: null }))
  for (const data of docs) {
    if ((query.pipelineId !== null && data["pipeline_id"] !== query.pipelineId) || !ownedBy(query.ownerId, data)) continue
    const status = text(data["status"])
    let month: string | null
    if (status === "open") {
      const date = text(data["expected_close_date"])
      if (date !== null && (date < query.fromDate || date >= query.toDate)) continue
      month = date === null ? null : date.slice(0, 7)
    } else if (status === "won") {
      const closedAt = num(data["closed_ms"])
      if (!within(closedAt, query.from, query.to)) continue
      month = monthOf(closedAt)
    } else continue
    addMoney(groups.at([status, month, text(data["currency"])]), data, probabilities)
  }
  return groups.all().map(({ key: [status, month, currency], sums }) => ({
    status: status ?? null,
    month: month ?? null,
    currency: currency ?? null,
    ...moneyRow(sums)
  }))
}
