import type {
  ClosedFigures,
  Collection,
  EntryFigures,
  FiguresQuery,
  ForecastFigures,
  JsonObject,
  StageProbability,
  StandingFigures,
  StayFigures,
  StoredDocument
} from "@dealstream/core"
import { figureDocuments } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import type { DocumentTableMap } from "./documentTableMap.js"
import { Params } from "./internal/params.js"
import type { Named, Reader, Statement } from "./reader.js"
import { tables } from "./tables.js"

/**
 * The figures queries of core's storage/figures.ts in SQL, over the generated columns and covering
 * indexes migration 0022 gives the figure tables: each one scan of an index-only range (the
 * workspace's live rows of one pipeline, or of one window of time), aggregated where it lies, so
 * only the few result rows travel. core's query/figureRows.ts says what each answers; the model
 * property (test/engine/pipelineFigures.*) holds the two to one meaning.
 *
 * Money sums are numeric (exact) and leave as text; a sum of weighted values adds each group's
 * value × its own probability, and its value without one × its stage's probability (given).
 */

/** The scope every figure shares: the workspace's live rows, of one owner when asked. */
const scoped = (params: Params, workspaceId: string, ownerId: string | null): string =>
  `workspace_id = ${params.add(workspaceId)} AND deleted_at IS NULL${ownerId === null ? "" : ` AND owner_id = ${params.add(ownerId)}`}`

/** Stage probabilities as a relation (stage_id, probability), numbers read exactly from their text. */
const probabilitiesOf = (params: Params, probabilities: ReadonlyArray<StageProbability>): string =>
  `unnest(${params.add(probabilities.map((p) => p.stageId))}::text[], ${params.add(probabilities.map((p) => String(p.probability)))}::numeric[])` +
  " AS p(stage_id, probability)"

/** What every part of a money figure gives per group, whether read from totals or summed from standings. */
const MEASURES = ["n", "valued", "value", "own_n", "own", "bare_n", "bare", "entered", "cycle"]

/**
 * The money measures summed over standings, as the totals' trigger (migration 0022) keeps them;
 * no forecast reads the others, so none is read here (what the indexes cover is all a cut reads).
 */
const moneyFromStandings = `count(*) AS n, count(value) AS valued, coalesce(sum(value), 0) AS value,
  count(value * probability) AS own_n, coalesce(sum(value * probability), 0) AS own,
  count(value) FILTER (WHERE probability IS NULL) AS bare_n, coalesce(sum(value) FILTER (WHERE probability IS NULL), 0) AS bare,
  0 AS entered, 0 AS cycle`

/** A kind of totals (migration 0022), totals and pending deltas alike, selecting `columns`. */
const totalsOf = (name: Named, columns: string, where: string) =>
  `SELECT ${columns} FROM ${name(tables.figureTotals)} WHERE ${where} UNION ALL SELECT ${columns} FROM ${name(tables.figureDeltas)} WHERE ${where}`

/**
 * Per group of `keys`, from `parts` (each giving the keys, stage_id and MEASURES): the count, the
 * value (null when no deal has one) and the weighted value, which adds per stage the value × own
 * probability and the value without one × the stage's probability (given); null when no deal has
 * both. With `entered`, also the sum of stage_entered_at.
 */
const moneyByGroup = (keys: ReadonlyArray<string>, parts: ReadonlyArray<string>, probabilities: string, entered: boolean): string => {
  const inner = [...new Set([...keys, "stage_id"])].join(", ")
  const outer = keys.map((key) => `g.${key}`).join(", ")
  return `SELECT ${outer}, sum(g.n)::int AS count,
      CASE WHEN sum(g.valued) > 0 THEN sum(g.value)::text END AS value,
      CASE WHEN sum(g.own_n) + sum(CASE WHEN p.probability IS NULL THEN 0 ELSE g.bare_n END) > 0
        THEN (sum(g.own) + coalesce(sum(g.bare * p.probability), 0))::text END AS weighted
      ${entered ? ", sum(g.entered)::text AS entered_ms" : ""}
    FROM (SELECT ${inner}, ${MEASURES.map((m) => `sum(${m}) AS ${m}`).join(", ")}
      FROM (${parts.join(" UNION ALL ")}) AS u GROUP BY ${inner}) AS g
    LEFT JOIN ${probabilities} ON p.stage_id = g.stage_id
    GROUP BY ${outer}
    HAVING sum(g.n) <> 0`
}

/** The totals' scope: the workspace, one kind, one owner when asked. */
const totalsScope = (params: Params, workspaceId: string, kind: string, ownerId: string | null): string =>
  `workspace_id = ${params.add(workspaceId)} AND kind = '${kind}'` + (ownerId === null ? "" : ` AND owner_id = ${params.add(ownerId)}`)

const standing = (name: Named, workspaceId: string, query: StandingFigures): Statement => {
  const params = new Params()
  const where = `${totalsScope(params, workspaceId, "stage", query.ownerId)} AND pipeline_id = ${params.add(query.pipelineId)}`
  const part = totalsOf(name, `stage_id, status, currency, ${MEASURES.join(", ")}`, where)
  return {
    text: moneyByGroup(["stage_id", "status", "currency"], [part], probabilitiesOf(params, query.probabilities), true),
    params: params.values
  }
}

const DAY = 86_400_000
const dayOf = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/** Won and lost by day of closing (totals of kind `closed`), when the window is whole days; else from the standings. */
const closed = (name: Named, table: string, workspaceId: string, query: ClosedFigures): Statement => {
  const params = new Params()
  if (query.from % DAY === 0 && query.to % DAY === 0) {
    const where =
      `${totalsScope(params, workspaceId, "closed", query.ownerId)} AND pipeline_id = ${params.add(query.pipelineId)} ` +
      `AND period >= ${params.add(dayOf(query.from))}::text AND period < ${params.add(dayOf(query.to))}::text`
    return {
      text: `SELECT status, sum(n)::int AS count, sum(cycle)::text AS cycle_ms FROM (${totalsOf(name, "status, n, cycle", where)}) AS t
        GROUP BY status HAVING sum(n) <> 0`,
      params: params.values
    }
  }
  return {
    text: `SELECT status, count(*)::int AS count, coalesce(sum(closed_ms - coalesce(created_ms, closed_ms)), 0)::text AS cycle_ms
      FROM ${table}
      WHERE ${scoped(params, workspaceId, query.ownerId)} AND pipeline_id = ${params.add(query.pipelineId)}
        AND status IN ('won', 'lost') AND closed_ms >= ${params.add(query.from)}::bigint AND closed_ms < ${params.add(query.to)}::bigint
      GROUP BY status`,
    params: params.values
  }
}

/**
 * Per deal (one pass over the window's entries, grouped by deal), for each stage: the first version
 * that entered it and the last that entered a stage ranked above its position; then the counts.
 */
const entries = (table: string, workspaceId: string, query: EntryFigures): Statement => {
  const params = new Params()
  const ranks = query.stages.map((s) => `WHEN ${params.add(s.stageId)}::text THEN ${params.add(s.rank)}::int`).join(" ")
  const perStage = query.stages
    .map(
      (s, i) =>
        `min(deal_version) FILTER (WHERE to_stage_id = ${params.add(s.stageId)}::text) AS v${i}, ` +
        `max(deal_version) FILTER (WHERE rank > ${params.add(s.position)}::int) AS m${i}`
    )
    .join(", ")
  const counts = query.stages.map((_, i) => `count(v${i})::int AS e${i}, (count(*) FILTER (WHERE m${i} > v${i}))::int AS a${i}`).join(", ")
  const where =
    `${scoped(params, workspaceId, query.ownerId)} AND to_pipeline_id = ${params.add(query.pipelineId)} ` +
    `AND at_ms >= ${params.add(query.from)}::bigint AND at_ms < ${params.add(query.to)}::bigint`
  return {
    text: `WITH e AS (SELECT deal_id, to_stage_id, deal_version, CASE to_stage_id ${ranks} END AS rank FROM ${table} WHERE ${where}),
      d AS (SELECT ${perStage} FROM e GROUP BY deal_id)
      SELECT ${counts} FROM d`,
    params: params.values
  }
}

/**
 * Per stage, one range of the index keyed by stage (migration 0034), aggregated alone: no sort of
 * the window's stays by stage (which spilled to disk at 41,000 stays), only each stage's durations
 * for its median. A stage without stays in the window gives no row.
 */
const stays = (table: string, workspaceId: string, query: StayFigures): Statement => {
  const params = new Params()
  return {
    text: `SELECT s.stage_id, d.count, d.total_ms, d.median_ms
      FROM unnest(${params.add(query.stageIds)}::text[]) AS s(stage_id),
      LATERAL (SELECT count(*)::int AS count, sum(at_ms - from_entered_ms)::text AS total_ms,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY at_ms - from_entered_ms) AS median_ms
        FROM ${table}
        WHERE ${scoped(params, workspaceId, query.ownerId)} AND from_pipeline_id = ${params.add(query.pipelineId)}
          AND from_stage_id = s.stage_id AND from_entered_ms IS NOT NULL
          AND at_ms >= ${params.add(query.from)}::bigint AND at_ms < ${params.add(query.to)}::bigint) AS d
      WHERE d.count > 0`,
    params: params.values
  }
}

const monthStart = (date: string) => `${date.slice(0, 7)}-01`
const nextMonth = (date: string) => {
  const next = new Date(Date.parse(`${monthStart(date)}T00:00:00.000Z`))
  next.setUTCMonth(next.getUTCMonth() + 1)
  return next.toISOString().slice(0, 10)
}

/** `[from, to)` (dates) cut at the start of each month within it: pieces that each lie in one month. */
const byMonth = (from: string, to: string): ReadonlyArray<readonly [string, string]> => {
  const pieces: Array<readonly [string, string]> = []
  for (let start = from; start < to; ) {
    const next = nextMonth(start)
    pieces.push([start, next < to ? next : to])
    start = next
  }
  return pieces
}

/**
 * The forecast: the whole months of the window from the totals of kind `forecast` (and the open
 * deals without a date), the days of a month the window cuts from the standings themselves.
 */
const forecast = (name: Named, table: string, workspaceId: string, query: ForecastFigures): Statement => {
  const params = new Params()
  const columns = `status, period AS month, currency, stage_id, ${MEASURES.join(", ")}`
  const totalsWhere = (extra: string) =>
    `${totalsScope(params, workspaceId, "forecast", query.ownerId)}${query.pipelineId === null ? "" : ` AND pipeline_id = ${params.add(query.pipelineId)}`} AND ${extra}`
  // Whole months: from the first month starting on or after fromDate, up to the month toDate falls in.
  const first = query.fromDate.endsWith("-01") ? query.fromDate : nextMonth(query.fromDate)
  const last = monthStart(query.toDate)
  const whole = first < last
  const parts = [totalsOf(name, columns, totalsWhere("status = 'open' AND period IS NULL"))]
  if (whole)
    parts.push(
      totalsOf(
        name,
        columns,
        totalsWhere(`period >= ${params.add(first.slice(0, 7))}::text AND period < ${params.add(last.slice(0, 7))}::text`)
      )
    )
  // The cut months' days, or the whole window when it lies within one or two months; a month at a
  // time, so that each piece names its won deals' month instead of computing it per deal.
  const outside: Array<readonly [string, string]> = whole
    ? [
        [query.fromDate, first],
        [last, query.toDate]
      ]
    : [[query.fromDate, query.toDate]]
  const cuts = outside.flatMap(([from, to]) => byMonth(from, to))
  // Open and won deals apart, each by its own partial index (an OR of the two reads the heap). The
  // status is named, not read, so the index answers alone (it holds no status column).
  const cut = (status: "open" | "won", month: string, condition: string) => {
    const pipeline = query.pipelineId === null ? "" : ` AND pipeline_id = ${params.add(query.pipelineId)}`
    return `SELECT '${status}'::text AS status, ${month} AS month, currency, stage_id, ${moneyFromStandings}
      FROM ${table}
      WHERE ${scoped(params, workspaceId, query.ownerId)}${pipeline} AND status = '${status}' AND ${condition}
      GROUP BY 1, 2, 3, 4`
  }
  for (const [from, to] of cuts) {
    const [fromMs, toMs] = [Date.parse(`${from}T00:00:00.000Z`), Date.parse(`${to}T00:00:00.000Z`)]
    parts.push(
      cut(
        "open",
        "substr(expected_close_date, 1, 7)",
        `expected_close_date >= ${params.add(from)}::text AND expected_close_date < ${params.add(to)}::text`
      ),
      cut(
        "won",
        `${params.add(from.slice(0, 7))}::text`,
        `closed_ms >= ${params.add(Math.max(fromMs, query.from))}::bigint AND closed_ms < ${params.add(Math.min(toMs, query.to))}::bigint`
      )
    )
  }
  return {
    text: moneyByGroup(["status", "month", "currency"], parts, probabilitiesOf(params, query.probabilities), false),
    params: params.values
  }
}

/** The statement answering a figures query over `table` (exported for the plan tests). */
export const figuresStatement = (name: Named, table: string, workspaceId: string, query: FiguresQuery): Statement => {
  switch (query._tag) {
    case "Standing":
      return standing(name, workspaceId, query)
    case "Closed":
      return closed(name, table, workspaceId, query)
    case "Entries":
      return entries(table, workspaceId, query)
    case "Stays":
      return stays(table, workspaceId, query)
    case "Forecast":
      return forecast(name, table, workspaceId, query)
  }
}

/** Entries come back as one row of counts per stage (e0, a0, e1, …): one row per stage, as core reads them. */
const rowsOf = (query: FiguresQuery, rows: ReadonlyArray<JsonObject>): ReadonlyArray<JsonObject> =>
  query._tag !== "Entries"
    ? rows
    : query.stages.map((stage, i) => ({ stage_id: stage.stageId, entered: rows[0]?.[`e${i}`] ?? 0, advanced: rows[0]?.[`a${i}`] ?? 0 }))

export const queryFigures =
  (reader: Reader, tableMap: DocumentTableMap) =>
  (collection: Collection, workspaceId: string, query: FiguresQuery): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> => {
    // A pipeline without stages has no entries to count.
    const rows =
      query._tag === "Entries" && query.stages.length === 0
        ? Effect.succeed<ReadonlyArray<JsonObject>>([])
        : reader.rows<JsonObject>(workspaceId, (name) => figuresStatement(name, name(tableMap.table(collection)), workspaceId, query))
    return Effect.map(rows, (read) => figureDocuments(collection, workspaceId, rowsOf(query, read)))
  }
