/**
 * Where Citus runs a statement, read off its `EXPLAIN (FORMAT JSON)` on the coordinator (issue 31:
 * every statement a request makes goes to one worker).
 *
 * - `OneTask`: one Citus scan with a single task and no subplans: a router query, or a call of a
 *   function delegated by its distribution argument (Citus plans the call as one task too). `node`
 *   is the worker the task goes to.
 * - `Coordinator`: no Citus scan at all; the statement touches no distributed table (a notification,
 *   the coordinator's own bookkeeping) and no worker.
 * - `MultiShard`: anything else: several tasks, several Citus scans, or subplans Citus runs first
 *   and feeds to the rest (recursive planning). `why` says which.
 */
export type Routing =
  | { readonly _tag: "OneTask"; readonly node: string | null }
  | { readonly _tag: "Coordinator" }
  | { readonly _tag: "MultiShard"; readonly why: string }

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isObject = (value: Json | undefined): value is { readonly [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Every object in the plan that is a Citus scan. */
const citusScans = (value: Json): ReadonlyArray<{ readonly [key: string]: Json }> => {
  if (Array.isArray(value)) return value.flatMap(citusScans)
  if (!isObject(value)) return []
  const own = typeof value["Custom Plan Provider"] === "string" && value["Custom Plan Provider"].startsWith("Citus") ? [value] : []
  // A scan's own tasks hold the workers' plans, not further Citus scans: only its siblings and parents count.
  return [...own, ...Object.entries(value).flatMap(([key, child]) => (key === "Distributed Query" ? [] : citusScans(child)))]
}

export const routingOf = (explained: unknown): Routing => {
  const scans = citusScans(explained as Json)
  if (scans.length === 0) return { _tag: "Coordinator" }
  if (scans.length > 1) return { _tag: "MultiShard", why: `${scans.length} Citus scans` }
  const distributed = scans[0]!["Distributed Query"]
  const job = isObject(distributed) ? distributed["Job"] : undefined
  const count = isObject(job) ? job["Task Count"] : undefined
  const subplans = isObject(distributed) ? distributed["Subplans"] : undefined
  if (Array.isArray(subplans) && subplans.length > 0) return { _tag: "MultiShard", why: `${subplans.length} subplans` }
  if (count !== 1) return { _tag: "MultiShard", why: `Task Count ${JSON.stringify(count)}` }
  const tasks = isObject(job) ? job["Tasks"] : undefined
  const first = Array.isArray(tasks) ? tasks[0] : undefined
  const node = isObject(first) && typeof first["Node"] === "string" ? first["Node"] : null
  return { _tag: "OneTask", node }
}
