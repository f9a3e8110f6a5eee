import { Effect, type Scope } from "effect"
import pg from "pg"
import { inject } from "vitest"

// Where a workspace's shards are on the Citus suites' cluster, moving them, and running one
// worker's transaction ids ahead of the other's (test/citus/shardMove.citus.spec.ts).

export const nodeUrl = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`

/** A plain client, ended with the scope: for the cluster's own functions and catalogs. */
export const connect = (url: string): Effect.Effect<pg.Client, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end())
  )

export const query = <Row>(client: pg.Client, text: string, values: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => client.query(text, [...values]).then((result) => result.rows as Array<Row>))

/** Where the workspace's shard group is, and the other worker. */
export const placement = (coordinator: pg.Client, workspace: string) =>
  Effect.gen(function* () {
    const [row] = yield* query<{ readonly shard: string; readonly port: number }>(
      coordinator,
      `SELECT p.shardid::text AS shard, p.nodeport AS port FROM pg_dist_shard_placement AS p
       WHERE p.shardid = get_shard_id_for_distribution_column('ds_events', $1::text)`,
      [workspace]
    )
    const other = inject("citusPorts")
      .slice(1)
      .find((port) => port !== row!.port)!
    return { shard: row!.shard, source: row!.port, target: other }
  })

/**
 * Takes `count` transaction ids on the server at `port` in one statement (each subtransaction that
 * writes takes one), so its ids run that far ahead of the other worker's.
 */
export const burnIds = (port: number, count: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* connect(nodeUrl(port, "postgres"))
      yield* query(client, "CREATE TEMP TABLE burnt (n int)")
      yield* query(
        client,
        `DO $burn$ BEGIN
           FOR n IN 1..${count} LOOP
             BEGIN INSERT INTO burnt VALUES (n); EXCEPTION WHEN OTHERS THEN NULL; END;
           END LOOP;
         END $burn$`
      )
    })
  )

const currentId = (port: number) =>
  Effect.scoped(
    Effect.flatMap(connect(nodeUrl(port, "postgres")), (client) =>
      Effect.map(query<{ readonly id: string }>(client, "SELECT pg_current_xact_id()::text AS id"), ([row]) => BigInt(row!.id))
    )
  )

/**
 * Holds, until the scope ends, the run's lock on its workers' transaction ids: a file that needs one
 * worker's ids ahead of the other's until its commits on the other have run (shardMove,
 * workspaceLogMove) takes it before sourceAhead, and so does a file that burns ids on both
 * (rebalance), so that none of them moves the ids another relies on while that one runs. A session
 * lock on the coordinator's own database, which every file's database shares a server with.
 */
export const workerIdsHeld = Effect.gen(function* () {
  const client = yield* connect(nodeUrl(inject("citusPorts")[0]!, "postgres"))
  yield* query(client, "SELECT pg_advisory_lock(31, 4)")
})

/** Moves the source's ids at least `ahead` past the target's, as a worker that served far longer would be. */
export const sourceAhead = (source: number, target: number, ahead: number) =>
  Effect.gen(function* () {
    const gap = (yield* currentId(target)) - (yield* currentId(source))
    yield* burnIds(source, Math.max(0, Number(gap)) + ahead)
  })

/** Moves the shard group from the source worker to the target, blocking its writes meanwhile. */
export const move = (coordinator: pg.Client, where: { readonly shard: string; readonly source: number; readonly target: number }) =>
  query(
    coordinator,
    `SELECT citus_move_shard_placement($1::bigint, '127.0.0.1', $2, '127.0.0.1', $3, shard_transfer_mode => 'block_writes')`,
    [where.shard, where.source, where.target]
  )

/** The workspace's feed offset and the Citus group it was set for (internal/feedOffset.ts). */
export const offsetOf = (coordinator: pg.Client, workspace: string) =>
  Effect.map(
    query<{ readonly server: number; readonly offset: string }>(
      coordinator,
      "SELECT server, xact_offset::text AS offset FROM ds_feed_offsets WHERE workspace_id = $1",
      [workspace]
    ),
    ([row]) => ({ server: row?.server, offset: BigInt(row?.offset ?? -1) })
  )

/** The Citus group id of the worker at `port`: what ds_feed_offsets names a worker by. */
export const groupOf = (coordinator: pg.Client, port: number) =>
  Effect.map(
    query<{ readonly group: number }>(coordinator, "SELECT groupid AS group FROM pg_dist_node WHERE nodeport = $1", [port]),
    ([row]) => row!.group
  )
