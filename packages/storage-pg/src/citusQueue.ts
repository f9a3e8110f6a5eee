import type { ClaimOptions, StoredDocument } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { claimable, type ClaimedRow, claimedColumns, inClaimOrder, sequenceKey, WINDOW, withSequence } from "./claimDeliveries.js"
import { isPending, nextAttemptAt } from "./internal/queueSql.js"
import { releaseSql } from "./releaseLeases.js"
import { documentTables } from "./tables.js"

/**
 * The delivery queue's writes on Citus, where ds_deliveries is spread over the workers by
 * workspace. One server's claim (claimDeliveries.ts) locks a window of the whole queue in one
 * statement; on Citus that statement would lock rows on every worker, which Citus refuses
 * (FOR UPDATE across shards) and could only run as a distributed transaction. Here a claim is:
 *
 * 1. A read of the due window across the shards, without locks: Citus sends the same ORDER BY …
 *    LIMIT to every shard (each walks its own ds_deliveries_due index) and merges the heads. A
 *    read takes no lock and prepares nothing on the workers.
 * 2. The pick, as one server's claim makes it: earliest due first, ties by the event's position and
 *    then the id, at most `perWebhook` of each webhook, at most `limit`.
 * 3. The lease, one router statement per workspace in the pick, sent at once: it locks the picked
 *    rows of that workspace that are still claimable (SKIP LOCKED, as on one server) on the worker
 *    holding them, in that worker's own transaction, and stores the event's sequence from the
 *    colocated log.
 *
 * Concurrent claimers read the same window, so a row may be lost to another one between 1 and 3:
 * its lease is then skipped or re-checked away (FOR UPDATE re-reads the newest version of a row
 * another claimer leased meanwhile), never taken twice. A claim that lost some rows reads again for
 * what it still may take, a few rounds at most, so that losing a race does not read as an empty
 * queue while due rows remain.
 */

interface Candidate {
  readonly workspace_id: string
  readonly id: string
  readonly webhook_id: string | null
  readonly due_at: string
  readonly seq: string | null
}

const candidatesSql = `SELECT workspace_id, id, data ->> 'webhook_id' AS webhook_id, ${nextAttemptAt} AS due_at, ${sequenceKey}::text AS seq
FROM ${documentTables.delivery}
WHERE ${claimable("$1::text")} AND NOT ((data ->> 'webhook_id') = ANY ($3::text[]))
ORDER BY ${nextAttemptAt}
LIMIT $2`

/** Leases the rows `$2` of workspace `$1` that are still claimable at `$3`: a router statement. */
const leaseSql = `WITH free AS MATERIALIZED (
  SELECT id FROM ${documentTables.delivery}
  WHERE workspace_id = $1 AND id = ANY ($2::text[]) AND ${claimable("$3::text")}
  FOR UPDATE SKIP LOCKED
)
UPDATE ${documentTables.delivery} AS d SET lease_owner = $4, lease_until = $5, data = ${withSequence("e.workspace_id = $1 AND ")}
WHERE d.workspace_id = $1 AND d.id IN (SELECT id FROM free)
RETURNING ${claimedColumns}`

/** Reads of the window after lost races, at most: each lost row was taken by another claimer. */
const ROUNDS = 4

const whole = (n: number) => Math.max(0, Math.floor(n))

/** One server's order of the window (claimSql's `picked`): due time, then known positions first, then id. */
const before = (a: Candidate, b: Candidate): number => {
  if (a.due_at !== b.due_at) return a.due_at < b.due_at ? -1 : 1
  if (a.seq !== b.seq) {
    if (a.seq === null) return 1
    if (b.seq === null) return -1
    const [x, y] = [BigInt(a.seq), BigInt(b.seq)]
    if (x !== y) return x < y ? -1 : 1
  }
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

export const claimDeliveriesOnCitus =
  (sql: SqlClient) =>
  (options: ClaimOptions): Effect.Effect<ReadonlyArray<StoredDocument>, SqlError> =>
    Effect.gen(function* () {
      const limit = whole(options.limit)
      const perWebhook = options.perWebhook === undefined ? limit : whole(options.perWebhook)
      const skipped = new Set(options.skipWebhooks ?? [])
      const perHook = new Map<string | null, number>()
      const claimed = new Map<string, ClaimedRow>()
      for (let round = 0; round < ROUNDS && claimed.size < limit; round++) {
        const want = limit - claimed.size
        const full = [...perHook].flatMap(([hook, n]) => (hook !== null && n >= perWebhook ? [hook] : []))
        const window = yield* sql.unsafe<Candidate>(candidatesSql, [options.now, want * WINDOW, [...skipped, ...full]])
        const counts = new Map(perHook)
        const picked: Array<Candidate> = []
        for (const candidate of [...window].sort(before)) {
          if (picked.length === want) break
          const n = counts.get(candidate.webhook_id) ?? 0
          if (n >= perWebhook || claimed.has(`${candidate.workspace_id}\u0000${candidate.id}`)) continue
          counts.set(candidate.webhook_id, n + 1)
          picked.push(candidate)
        }
        if (picked.length === 0) break
        const byWorkspace = new Map<string, Array<string>>()
        for (const { id, workspace_id } of picked) byWorkspace.set(workspace_id, [...(byWorkspace.get(workspace_id) ?? []), id])
        const leased = yield* Effect.forEach(
          byWorkspace,
          ([workspace, ids]) => sql.unsafe<ClaimedRow>(leaseSql, [workspace, ids, options.now, options.owner, options.leaseUntil]),
          { concurrency: "unbounded" }
        )
        const hookOf = new Map(picked.map((c) => [`${c.workspace_id}\u0000${c.id}`, c.webhook_id]))
        for (const row of leased.flat()) {
          const key = `${row.workspace_id}\u0000${row.id}`
          claimed.set(key, row)
          const hook = hookOf.get(key) ?? null
          perHook.set(hook, (perHook.get(hook) ?? 0) + 1)
        }
        // Every picked row leased: the window held no more for this claim, as on one server.
        if (leased.flat().length === picked.length) break
      }
      return inClaimOrder([...claimed.values()])
    })

/** Who holds leases of `$1`: a read across the shards, then a router statement per workspace. */
const holdersSql = `SELECT DISTINCT workspace_id FROM ${documentTables.delivery} WHERE ${isPending} AND lease_owner = $1`

/**
 * On Citus the one-server release (one UPDATE across all workspaces) would write on every worker in
 * one distributed transaction: here each workspace's leases are given back by a router statement
 * of their own, on their worker alone.
 */
export const releaseLeasesOnCitus =
  (sql: SqlClient) =>
  (owner: string): Effect.Effect<void, SqlError> =>
    Effect.flatMap(sql.unsafe<{ readonly workspace_id: string }>(holdersSql, [owner]), (holders) =>
      Effect.forEach(holders, ({ workspace_id }) => sql.unsafe(`${releaseSql} AND workspace_id = $2`, [owner, workspace_id]), {
        concurrency: "unbounded",
        discard: true
      })
    )
