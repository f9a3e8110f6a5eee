import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { selectCall } from "./citusDelegation.js"
import type { WorkerRoutes } from "./citusWorkers.js"
import type { Named, Reader, Statement } from "./reader.js"

/** A placeholder naming, and the tables it named: what ds_read_in is told to put shards in for. */
const placeholders = (): { readonly name: Named; readonly names: ReadonlySet<string> } => {
  const names = new Set<string>()
  return {
    name: (table) => {
      names.add(table)
      return `{${table}}`
    },
    names
  }
}

const element = (value: unknown): string => (value === null ? "NULL" : `"${String(value).replace(/["\\]/g, "\\$&")}"`)

/**
 * A parameter as ds_read_in is given it: text, an array in PostgreSQL's array syntax. Every
 * statement read this way casts each parameter where it uses it (compileQuery, compileExpr), so the
 * text is taken as the type the statement says, as a typed parameter would be.
 */
export const asText = (value: unknown): string | null => {
  if (value === null || value === undefined) return null
  if (Array.isArray(value)) return `{${value.map(element).join(",")}}`
  if (typeof value === "object") return JSON.stringify(value)
  return String(value)
}

/**
 * `query` with its k-th parameter `$k` as `$1[k]`, the k-th element of the one array ds_read_in
 * binds: outside string literals only (a sort expression's `'…Z$'` holds a dollar sign).
 */
export const asElements = (query: string): string =>
  query
    .split("'")
    .map((part, i) => (i % 2 === 0 ? part.replace(/\$(\d+)/g, "$$1[$1]") : part))
    .join("'")

/**
 * A statement's rows read on the worker holding the workspace (citusWorkers.ts), where ds_read_in
 * runs it on the workspace's shards with PostgreSQL's own planner: through the coordinator, Citus
 * plans it twice and the coordinator pays a hop (bench/ANALYSIS.md, issue 31). Its tables are named
 * by placeholders, each parameter cast where it is used. The text is the host's own, never a
 * request's.
 */
const readOnWorker = <Row>(
  routes: WorkerRoutes,
  workspaceId: string,
  make: (name: Named) => Statement,
  around: (text: string) => string
): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
  Effect.suspend(() => {
    const { name, names } = placeholders()
    const { params, text } = make(name)
    return Effect.map(
      routes.run(workspaceId, (on, direct) =>
        on.unsafe<{ readonly rows: ReadonlyArray<Row> }>(
          selectCall("ds_read_in($1::text, $2::text, $3::text[], $4::text[]) AS rows", direct),
          [workspaceId, asElements(around(text)), [...names], params.map(asText)]
        )
      ),
      ([answer]) => answer?.rows ?? []
    )
  })

/**
 * Reads on the workspace's worker. A page's rows come back as one json array, which promises no
 * order: they are numbered as the page yields them and put in that order again.
 */
export const onWorker = (routes: WorkerRoutes): Reader => ({
  rows: (workspaceId, make) => readOnWorker(routes, workspaceId, make, (text) => text),
  page: <Row extends object>(workspaceId: string, make: (name: Named) => Statement) =>
    Effect.map(
      readOnWorker<Row & { readonly n: number }>(
        routes,
        workspaceId,
        make,
        (text) => `SELECT page.*, row_number() OVER () AS n FROM (${text}) AS page`
      ),
      (rows) => [...rows].sort((a, b) => a.n - b.n).map(({ n: _, ...row }) => row as unknown as Row)
    )
})
