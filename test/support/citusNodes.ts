import type { Sql } from "./consistency.js"

/** A primary worker of a Citus cluster, as the coordinator knows it (pg_dist_node). */
export interface CitusWorkerNode {
  /** `host:port`: the key of a host's citusWorkerUrls. */
  readonly node: string
  readonly port: number
}

/**
 * The cluster's primary workers, read on the coordinator. A host sends commits, feed bounds and
 * GETs straight to them (storage-pg's citusWorkers.ts), so a fault test that stands between a host
 * and its database stands in front of each of them too, and names them in citusWorkerUrls.
 */
export const citusWorkerNodes = async (sql: Sql): Promise<ReadonlyArray<CitusWorkerNode>> =>
  (
    await sql.query<{ readonly nodename: string; readonly nodeport: number }>(
      "SELECT nodename, nodeport FROM pg_dist_node WHERE groupid > 0 AND noderole = 'primary' ORDER BY nodeport"
    )
  ).map((row) => ({ node: `${row.nodename}:${row.nodeport}`, port: Number(row.nodeport) }))

/** A URL of the coordinator's database, at a worker's port (a worker holds a database of that name). */
export const atPort = (databaseUrl: string, port: number): string => {
  const url = new URL(databaseUrl)
  url.port = String(port)
  return url.toString()
}
