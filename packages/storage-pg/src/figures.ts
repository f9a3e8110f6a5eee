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
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { DocumentTableMap } from "./documentTableMap.js"
import { Params } from "./internal/params.js"

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

interface Statement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/** The scope every figure shares: the workspace's live rows, of one owner when asked. */
const scoped = (params: Params, workspaceId: string, ownerId: string | null): string =>
  `workspace_id = ${params.add(workspaceId)} AND deleted_at IS NULL${ownerId === null ? "" : ` AND owner_id = ${params.add(ownerId)}`}`

/** Stage probabilities as a relation (stage_id, probability), numbers read exactly from their text. */
const probabilitiesOf = (params: Params, probabilities: ReadonlyArray<StageProbability>): string =>
  `unnest(${params.add(probabilities.map((p) => p.stageId))}::text[], ${params.add(probabilities.map((p) => String(p.probability)))}::numeric[])` +
  " AS p(stage_id, probability)"

/**
 * Per group of `keys`: the count, the value, and the weighted value, which adds each stage's two
 * parts (value × own probability, and the value without one × the stage's probability, given).
 * With `entered`, also the sum of stage_entered_at.
 */
const moneyByGroup = (keys: ReadonlyArray<string>, from: string, probabilities: string, entered: boolean): string => {
  const inner = [...new Set([...keys, "stage_id"])].join(", ")
  const outer = keys.map((key) => `g.${key}`).join(", ")
  return `SELECT ${outer}, sum(g.count)::int AS count, sum(g.value)::text AS value,
      (CASE WHEN count(g.own) + count(g.bare * p.probability) = 0 THEN NULL
        ELSE coalesce(sum(g.own), 0) + coalesce(sum(g.bare * p.probability), 0) END)::text AS weighted
      ${entered ? ", sum(g.entered)::text AS entered_ms" : ""}
    FROM (SELECT ${inner}, count(*) AS count, sum(value) AS value, sum(value * probability) AS own,
        sum(value) FILTER (WHERE probability IS NULL) AS bare${entered ? ", sum(entered_ms) AS entered" : ""}
      FROM ${from} GROUP BY ${inner}) AS g
    LEFT JOIN ${probabilities} ON p.stage_id = g.stage_id
    GROUP BY ${outer}`
}

const standing = (table: string, workspaceId: string, query: StandingFigures): Statement => {
  const params = new Params()
  const where = `${scoped(params, workspaceId, query.ownerId)} AND pipeline_id = ${params.add(query.pipelineId)}`
  return {
    text: moneyByGroup(["stage_id", "status", "currency"], `${table} WHERE ${where}`, probabilitiesOf(params, query.probabilities), true),
    params: params.values
  }
}

const closed = (table: string, workspaceId: string, query: ClosedFigures): Statement => {
  const params = new Params()
  return {
    text: `SELECT status, count(*)::int AS count, coalesce(sum(closed_ms - coalesce(created_ms, closed_ms)), 0)::text AS cycle_ms
      FROM ${table}
      WHERE ${scoped(params, workspaceId, query.ownerId)} AND pipeline_id = ${params.add(query.pipelineId)}
        AND status IN ('won', 'lost') AND closed_ms >= ${params.add(query.from)} AND closed_ms < ${params.add(query.to)}
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
    `AND at_ms >= ${params.add(query.from)} AND at_ms < ${params.add(query.to)}`
  return {
    text: `WITH e AS (SELECT deal_id, to_stage_id, deal_version, CASE to_stage_id ${ranks} END AS rank FROM ${table} WHERE ${where}),
      d AS (SELECT ${perStage} FROM e GROUP BY deal_id)
      SELECT ${counts} FROM d`,
    params: params.values
  }
}

const stays = (table: string, workspaceId: string, query: StayFigures): Statement => {
  const params = new Params()
  return {
    text: `SELECT from_stage_id AS stage_id, count(*)::int AS count, sum(at_ms - from_entered_ms)::text AS total_ms,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY at_ms - from_entered_ms) AS median_ms
      FROM ${table}
      WHERE ${scoped(params, workspaceId, query.ownerId)} AND from_pipeline_id = ${params.add(query.pipelineId)}
        AND from_stage_id IS NOT NULL AND from_entered_ms IS NOT NULL
        AND at_ms >= ${params.add(query.from)} AND at_ms < ${params.add(query.to)}
      GROUP BY from_stage_id`,
    params: params.values
  }
}

const forecast = (table: string, workspaceId: string, query: ForecastFigures): Statement => {
  const params = new Params()
  const pipeline = query.pipelineId === null ? "" : ` AND pipeline_id = ${params.add(query.pipelineId)}`
  const rows = `(SELECT status, stage_id, currency, value, probability,
        CASE WHEN status = 'open' THEN substr(expected_close_date, 1, 7)
          ELSE to_char(to_timestamp(closed_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM') END AS month
      FROM ${table}
      WHERE ${scoped(params, workspaceId, query.ownerId)}${pipeline}
        AND ((status = 'open' AND (expected_close_date IS NULL
              OR (expected_close_date >= ${params.add(query.fromDate)}::text AND expected_close_date < ${params.add(query.toDate)}::text)))
          OR (status = 'won' AND closed_ms >= ${params.add(query.from)} AND closed_ms < ${params.add(query.to)}))) AS deals`
  return {
    text: moneyByGroup(["status", "month", "currency"], rows, probabilitiesOf(params, query.probabilities), false),
    params: params.values
  }
}

const statementOf = (table: string, workspaceId: string, query: FiguresQuery): Statement | null => {
  switch (query._tag) {
    case "Standing":
      return standing(table, workspaceId, query)
    case "Closed":
      return closed(table, workspaceId, query)
    case "Entries":
      return query.stages.length === 0 ? null : entries(table, workspaceId, query)
    case "Stays":
      return stays(table, workspaceId, query)
    case "Forecast":
      return forecast(table, workspaceId, query)
  }
}

/** Entries come back as one row of counts per stage (e0, a0, e1, …): one row per stage, as core reads them. */
const rowsOf = (query: FiguresQuery, rows: ReadonlyArray<JsonObject>): ReadonlyArray<JsonObject> =>
  query._tag !== "Entries"
    ? rows
    : query.stages.map((stage, i) => ({ stage_id: stage.stageId, entered: rows[0]?.[`e${i}`] ?? 0, advanced: rows[0]?.[`a${i}`] ?? 0 }))

export const queryFigures =
  (sql: SqlClient, tableMap: DocumentTableMap) =>
  (collection: Collection, workspaceId: string, query: FiguresQuery): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
    Effect.gen(function* () {
      const statement = yield* Effect.sync(() => statementOf(tableMap.table(collection), workspaceId, query))
      const rows = statement === null ? [] : yield* sql.unsafe<JsonObject>(statement.text, statement.params)
      return figureDocuments(collection, workspaceId, rowsOf(query, rows))
    })
