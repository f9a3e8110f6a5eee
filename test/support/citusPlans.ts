import { Effect } from "effect"
import { rowsOn } from "./citusTransactions.js"

// What Citus makes of one statement on the coordinator: how many tasks (shards) it sends, and the
// plan nodes the workers run for them.

interface PlanNode {
  readonly "Node Type"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
  readonly "Distributed Query"?: { readonly Job: { readonly "Task Count": number; readonly Tasks?: ReadonlyArray<Task> } }
}
interface Task {
  readonly "Remote Plan"?: ReadonlyArray<ReadonlyArray<{ readonly Plan: PlanNode }>>
}

const nodesOf = (node: PlanNode): ReadonlyArray<PlanNode> => [
  node,
  ...(node.Plans ?? []).flatMap(nodesOf),
  ...(node["Distributed Query"]?.Job.Tasks ?? []).flatMap((task) => (task["Remote Plan"] ?? []).flat().flatMap((r) => nodesOf(r.Plan)))
]

/** EXPLAIN of `statement` with `params` on the coordinator of `url`: its tasks and every plan node's type. */
export const planOn = (url: string, statement: string, params: ReadonlyArray<unknown>) =>
  Effect.promise(async () => {
    const [row] = await rowsOn<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
      url,
      `EXPLAIN (FORMAT JSON) ${statement}`,
      params
    )
    const nodes = nodesOf(row!["QUERY PLAN"][0]!.Plan)
    return {
      tasks: nodes.flatMap((n) => (n["Distributed Query"] === undefined ? [] : [n["Distributed Query"].Job["Task Count"]])),
      nodes: nodes.flatMap((n) => (n["Node Type"] === undefined ? [] : [n["Node Type"]]))
    }
  })
