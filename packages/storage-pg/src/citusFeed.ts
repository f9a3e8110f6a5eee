import type { ChangeFeedPage } from "@dealstream/core"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { delegated } from "./citusDelegation.js"
import { type FeedRead, readFeed } from "./readFeed.js"

/**
 * The change feed on Citus: the bound first, from the worker holding the workspace
 * (functions/ds_feed_bound_in.ts), then the page below it, a router query to that worker. Two
 * statements where one server needs one; the bound still holds when the page is read, since
 * transactions below it had ended or never wrote to this workspace, and new ones take higher ids.
 * A bound held back by a transaction that ended while it was taken (`ended`) is taken again, as
 * readFeed does on one server.
 */
export const readFeedOnCitus =
  (sql: SqlClient) =>
  (options: FeedRead): Effect.Effect<ChangeFeedPage, SqlError> => {
    const bound = (again: number): Effect.Effect<string, SqlError> =>
      Effect.flatMap(
        delegated(
          sql.unsafe<{ readonly bound: { readonly below: string; readonly ended: boolean } }>("SELECT ds_feed_bound_in($1) AS bound", [
            options.workspaceId
          ])
        ),
        ([row]) => (row!.bound.ended && again > 0 ? bound(again - 1) : Effect.succeed(BigInt(row!.bound.below).toString()))
      )
    return Effect.flatMap(bound(3), (below) =>
      readFeed(sql, () => `bound AS MATERIALIZED (SELECT '${below}'::xid8 AS below, false AS ended)`)(options)
    )
  }
