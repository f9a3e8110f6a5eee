/** One node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, with the fields the plan tests read. */
export interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Rows Removed by Filter"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** The node and every node below it, depth first. */
export const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodesOf)]
