import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"

/** One node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, with the fields the plan tests read. */
export interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Index Cond"?: string
  readonly "Scan Direction"?: string
  readonly "Rows Removed by Filter"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** A node of `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`: what it found and read, besides its shape. */
export interface AnalyzedPlanNode extends PlanNode {
  readonly "Actual Rows": number
  readonly "Shared Hit Blocks": number
  readonly "Shared Read Blocks": number
  readonly Plans?: ReadonlyArray<AnalyzedPlanNode>
}

/** The node and every node below it, depth first. */
export const nodesOf = <N extends PlanNode>(node: N): ReadonlyArray<N> => [
  node,
  ...((node.Plans ?? []) as ReadonlyArray<N>).flatMap((child) => nodesOf(child))
]

/**
 * The root of PostgreSQL's plan for a statement: `EXPLAIN (FORMAT JSON)`, with `ANALYZE` (which runs
 * it) and `BUFFERS` when asked; read an analyzed plan as AnalyzedPlanNode.
 */
export const planOf = <N extends PlanNode = PlanNode>(
  sql: SqlClient,
  text: string,
  params: ReadonlyArray<unknown>,
  options: ReadonlyArray<"ANALYZE" | "BUFFERS"> = []
): Effect.Effect<N, unknown> =>
  Effect.map(
    sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: N }> }>(
      `EXPLAIN (${[...options, "FORMAT JSON"].join(", ")}) ${text}`,
      params
    ),
    ([row]) => row!["QUERY PLAN"][0]!.Plan
  )
