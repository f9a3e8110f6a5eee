import { Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { NOT_HERE } from "./functions/ds_workspace_here.js"
import { keptPlan } from "./functions/keptPlan.js"
import { sqlStateOf } from "./internal/sqlState.js"

/**
 * `SELECT call`, a delegated function's call as sent: as it is to the coordinator, which delegates
 * a lone call; straight to the workspace's worker (`direct`), in the form whose plan is kept there
 * (functions/keptPlan.ts).
 */
export const selectCall = (call: string, direct: boolean): string => `SELECT ${direct ? keptPlan(call) : call}`

/** Whether a statement failed because a delegated call ran off its workspace's worker. */
export const notHere = (error: SqlError): boolean => sqlStateOf(error).code === NOT_HERE

/**
 * A call Citus should delegate to a workspace's worker (a `…_in` function), tried again when it ran
 * elsewhere and refused (functions/ds_workspace_here.ts). The refusal changed nothing, and the pool
 * retires the connection it came on (pool.ts), whose backend would never delegate again, so the
 * next try goes out on another. A few tries: every connection of the pool may have gone bad the
 * same way, and each refusal retires one.
 */
export const delegated = <A>(call: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> =>
  Effect.retry(call, { while: notHere, times: 8 })
