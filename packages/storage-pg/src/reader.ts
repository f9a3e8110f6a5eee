import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** How a statement names a table: itself on one server, a placeholder ds_read_in names a shard for on Citus. */
export type Named = (table: string) => string

export const itself: Named = (table) => table

/** A statement's text, and its parameters `$1`, `$2`, … */
export interface Statement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/**
 * Where a read of one workspace's rows runs: a client of one server (`onServer`), or on Citus the
 * workspace's worker (readOnWorker.ts). A read is written once, as the statement it makes given how
 * tables are named; the reader names them, sends it and answers its rows. A statement that throws
 * while it is made (a field name the compiler refuses) is a defect of the caller, not a storage
 * failure.
 */
export interface Reader {
  /** The rows of the statement `make` writes. */
  readonly rows: <Row extends object>(workspaceId: string, make: (name: Named) => Statement) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /** The same for a statement with an ORDER BY of its own: the rows in that order. */
  readonly page: <Row extends object>(workspaceId: string, make: (name: Named) => Statement) => Effect.Effect<ReadonlyArray<Row>, SqlError>
}

/** Reads through `sql`, which keeps a statement's order. */
export const onServer = (sql: SqlClient): Reader => {
  const rows = <Row extends object>(_: string, make: (name: Named) => Statement) =>
    Effect.suspend(() => {
      const { params, text } = make(itself)
      return sql.unsafe<Row>(text, params as Array<unknown>)
    })
  return { rows, page: rows }
}
