import type { ChangeFeedPage } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { selectCall } from "./citusDelegation.js"
import type { WorkerRoutes } from "./citusWorkers.js"
import { feedEra } from "./internal/feedOffset.js"
import { type FeedRead, readFeedOnce } from "./readFeed.js"

/** What ds_feed_bound_in answers: the bound in the feed's keys, and the offset era it holds in. */
export interface CitusFeedBound {
  readonly below: string
  readonly ended: boolean
  readonly era: string
}

/**
 * The change feed on Citus: the bound first, from the worker holding the workspace
 * (functions/ds_feed_bound_in.ts), then the page below it, a router query. Both go to that worker
 * straight from the host (citusWorkers.ts), so a feed read costs the coordinator nothing; where no
 * worker is found, both go through the coordinator. Two statements where one server needs one; the
 * bound still holds when the page is read, since transactions below it had ended or never wrote to
 * this workspace, and new ones take higher ids.
 *
 * Unless the workspace moved to another worker in between and committed there: the bound, in the
 * old worker's ids plus the old offset, says nothing of the new worker's commits still running. So
 * the page is read only while the offset's era the bound was taken in still holds where it is read
 * (internal/feedOffset.ts; the new worker's first commit changes it); otherwise it reads nothing
 * and both are taken again. So is a bound held back by a transaction that ended while it was taken
 * (`ended`), as readFeed does on one server. (A page read on a worker the shards just left is
 * sent on by Citus to the one holding them: the era check is the same.)
 */
export const readFeedOnCitus =
  (routes: WorkerRoutes) =>
  (options: FeedRead): Effect.Effect<ChangeFeedPage, SqlError> => {
    /** The page, or undefined where it is worth reading again (a bound held back, an era gone). */
    const once =
      (last: boolean) =>
      (on: SqlClient, direct: boolean): Effect.Effect<ChangeFeedPage | undefined, SqlError> =>
        Effect.flatMap(boundOn(on, direct, options.workspaceId), (bound) =>
          bound.ended && !last
            ? Effect.succeed(undefined)
            : Effect.map(readBelow(on, bound)(options), (read) => (read.ended && !last ? undefined : read.page))
        )
    const read = (again: number): Effect.Effect<ChangeFeedPage, SqlError> =>
      Effect.flatMap(routes.run(options.workspaceId, once(again === 0)), (page) =>
        page === undefined ? read(again - 1) : Effect.succeed(page)
      )
    return read(3)
  }

const boundOn = (on: SqlClient, direct: boolean, workspaceId: string): Effect.Effect<CitusFeedBound, SqlError> =>
  Effect.map(
    on.unsafe<{ readonly bound: CitusFeedBound }>(selectCall("ds_feed_bound_in($1) AS bound", direct), [workspaceId]),
    ([row]) => row!.bound
  )

/** The bound of a workspace's feed, from the worker holding it (functions/ds_feed_bound_in.ts). */
export const feedBoundOnCitus = (routes: WorkerRoutes, workspaceId: string): Effect.Effect<CitusFeedBound, SqlError> =>
  routes.run(workspaceId, (on, direct) => boundOn(on, direct, workspaceId))

/**
 * The page below `bound`, read only where the bound's era still holds; where it does not, no event
 * and `ended`, for the caller to take the bound again.
 */
export const readBelow =
  (sql: SqlClient, { below, era }: CitusFeedBound) =>
  (options: FeedRead): Effect.Effect<{ readonly page: ChangeFeedPage; readonly ended: boolean }, SqlError> => {
    // The worker's own answers, spelled into the statement: checked to be digits (and a colon).
    if (!/^\d+$/.test(below) || !/^(\d+:\d+)?$/.test(era)) return Effect.die(new Error(`a feed bound of an unknown form: ${below} ${era}`))
    const holds = (workspace: string) => `${feedEra(workspace)} = '${era}'`
    return readFeedOnce(
      sql,
      (workspace) =>
        `bound AS MATERIALIZED (SELECT CASE WHEN ${holds(workspace)} THEN '${below}' ELSE '0' END::xid8 AS below, NOT (${holds(workspace)}) AS ended)`
    )(options)
  }
