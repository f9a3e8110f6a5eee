import type { Sql } from "./consistency.js"
import { onCitus } from "./pg.js"

/** A primary worker of a Citus cluster: `host:port` as the coordinator knows it, and its URL. */
interface WorkerNode {
  readonly node: string
  readonly port: number
  /** The coordinator's database URL at the worker's port (a worker holds a database of that name). */
  readonly url: string
}

const workerNodes = async (sql: Sql, databaseUrl: string): Promise<ReadonlyArray<WorkerNode>> =>
  (
    await sql.query<{ readonly nodename: string; readonly nodeport: number }>(
      "SELECT nodename, nodeport FROM pg_dist_node WHERE groupid > 0 AND noderole = 'primary' ORDER BY nodeport"
    )
  ).map((row) => {
    const url = new URL(databaseUrl)
    url.port = String(row.nodeport)
    return { node: `${row.nodename}:${row.nodeport}`, port: Number(row.nodeport), url: url.toString() }
  })

/**
 * A host sends commits, feed bounds and GETs straight to the workers (storage-pg's
 * citusWorkers.ts), so a fault test that stands between a host and its database stands in front of
 * each worker too. On Citus: a proxy per primary worker (`start`), and the citusWorkerUrls (by
 * `host:port` in pg_dist_node) that send a host through them (`reach`); on one server, none.
 */
export const workersBehindProxies = async <P>(
  sql: Sql,
  databaseUrl: string,
  start: (worker: { readonly url: string; readonly port: number }) => Promise<P>,
  reach: (proxy: P, workerUrl: string) => string
): Promise<{ readonly proxies: ReadonlyArray<P>; readonly urls: Readonly<Record<string, string>> }> => {
  const workers = onCitus() ? await workerNodes(sql, databaseUrl) : []
  const proxies = await Promise.all(workers.map(start))
  return { proxies, urls: Object.fromEntries(workers.map((worker, i) => [worker.node, reach(proxies[i]!, worker.url)])) }
}
