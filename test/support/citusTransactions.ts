import { Effect } from "effect"
import pg from "pg"

// What a statement costs on Citus beyond one worker: the two-phase commits Citus makes when a
// transaction writes on more than one node (issue 31: no request pays for one).

/** Runs `statement` on the node of `url` with `params` and answers its rows. */
export const rowsOn = async <A>(url: string, statement: string, params: ReadonlyArray<unknown> = []): Promise<ReadonlyArray<A>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(statement, [...params])).rows as Array<A>
  } finally {
    await client.end()
  }
}

/**
 * The coordinator's record of the transactions it prepared on workers (pg_dist_transaction, one
 * row per worker a distributed transaction wrote on). Citus's recovery clears rows of finished
 * ones once a minute or so, so only rows that appear matter, never rows that go.
 */
const prepared = (url: string) =>
  Effect.promise(
    async () => new Set((await rowsOn<{ readonly gid: string }>(url, "SELECT gid FROM pg_dist_transaction")).map((r) => r.gid))
  )

/** `effect`'s value, and the prepared transactions (their gids) the coordinator of `url` recorded while it ran. */
export const preparedDuring = <A, E, R>(url: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = yield* prepared(url)
    const value = yield* effect
    const after = yield* prepared(url)
    return { value, prepared: [...after].filter((gid) => !before.has(gid)) }
  })

/** The worker ports holding each of `workspaces`' shard of `table`. */
export const workersOf = (url: string, table: string, workspaces: ReadonlyArray<string>) =>
  Effect.promise(async () =>
    (
      await rowsOn<{ readonly port: number }>(
        url,
        `SELECT p.nodeport AS port FROM unnest($1::text[]) AS w
         JOIN pg_dist_placement AS d ON d.shardid = get_shard_id_for_distribution_column($2, w)
         JOIN pg_dist_node AS p ON p.groupid = d.groupid`,
        [workspaces, table]
      )
    ).map((r) => r.port)
  )
