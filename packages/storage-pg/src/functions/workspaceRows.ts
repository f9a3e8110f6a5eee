/**
 * Where the stored functions run, which decides how they write a workspace's rows.
 *
 * - "plain": one PostgreSQL server. Every statement is static SQL, whose plan PL/pgSQL caches.
 * - "citus": a Citus worker, inside the call ds_commit_batch_in delegates there. A static statement
 *   on a distributed table goes through Citus's planner and executor even on the worker that holds
 *   the shard: 10–40 times its plain cost (bench/ANALYSIS.md, issue 31). So a statement on the rows
 *   of the workspace ds_commit_batch_in found here skips Citus. It names the workspace's shards
 *   through the views ds_shards_here made for its shard group and put on the search_path
 *   (`here_<table>`): static SQL, whose plan PL/pgSQL keeps while the path stays. While a migration
 *   has the views paused, it names the shard table itself, by EXECUTE: planned at every call. Both
 *   are safe because ds_commit_batch_in holds Citus's shard metadata lock and has checked that the
 *   shards are here, so no move can take them away before the commit ends. Other rows (an API
 *   key's entry in the system workspace, written by a commit of another) keep the static statement
 *   on the distributed table, through Citus.
 */
export type Layout = "plain" | "citus"

/** The transaction-local setting naming the workspace whose shards ds_commit_batch_in found here. */
export const LOCAL_WORKSPACE_SETTING = "dealstream.local_workspace"

/** The same, set only while that workspace's `here_` views are on the search_path (ds_shards_here.ts). */
export const VIEWED_WORKSPACE_SETTING = "dealstream.viewed_workspace"

export interface WorkspaceRows {
  /** The distributed table, `{t}` in `sql`. */
  readonly table: string
  /** Colocated tables the statement touches too, `{t1}`, `{t2}`… in `sql`. */
  readonly also?: ReadonlyArray<string>
  /** A PL/pgSQL expression: the workspace of the rows the statement touches. */
  readonly workspace: string
  /** The statement, `{t}` for the table, `$1`… for `params`; a SELECT with `into` or `perform`. */
  readonly sql: string
  /** PL/pgSQL expressions, `$1` first. */
  readonly params?: ReadonlyArray<string>
  /** A PL/pgSQL target for the statement's one row (NULL when there is none). */
  readonly into?: string
  /** A SELECT run for its effect (a row lock): PERFORM in static form. */
  readonly perform?: boolean
}

const tablesOf = (rows: WorkspaceRows) => [rows.table, ...(rows.also ?? [])]

/** The name of a table's view onto the local workspace's shard (functions/ds_shards_here.ts). */
export const hereName = (table: string) => `here_${table}`

const staticForm = (rows: WorkspaceRows, name: (table: string) => string = (table) => table): string => {
  const params = rows.params ?? []
  let text = tablesOf(rows)
    .reduce((sql, table, i) => sql.replaceAll(i === 0 ? "{t}" : `{t${i}}`, name(table)), rows.sql)
    .replace(/\$(\d+)/g, (_, n: string) => `(${params[Number(n) - 1]})`)
  if (rows.perform === true) text = text.replace(/^SELECT\b/, "PERFORM")
  return `${text}${rows.into === undefined ? "" : ` INTO ${rows.into}`};`
}

/**
 * The name of the workspace's shard of a table, `table` being a PL/pgSQL text expression (a quoted
 * name, or a variable holding one): Citus names a shard `<table>_<shard id>`.
 */
export const shardOf = (table: string, workspace: string) =>
  `${table} || '_' || get_shard_id_for_distribution_column(${table}, ${workspace})`

const shardForm = (rows: WorkspaceRows): string => {
  const tables = tablesOf(rows)
  const text = tables.reduce(
    (sql, _, i) => sql.replaceAll(i === 0 ? "{t}" : `{t${i}}`, `%${i + 1}$I`),
    rows.sql.replaceAll("'", "''").replaceAll("%", "%%")
  )
  const shards = tables.map((table) => shardOf(`'${table}'`, rows.workspace)).join(", ")
  const using = (rows.params ?? []).length === 0 ? "" : ` USING ${rows.params!.join(", ")}`
  return `EXECUTE format('${text}', ${shards})${rows.into === undefined ? "" : ` INTO ${rows.into}`}${using};`
}

const isSet = (setting: string, workspace: string) => `${workspace} = current_setting('${setting}', true)`

/**
 * The statement on Citus: on the `here_` views when the rows are the viewed workspace's, by EXECUTE
 * into the shard when they are the local workspace's, else `otherwise` (by EXECUTE when absent).
 */
const citusForm = (rows: WorkspaceRows, otherwise?: string): string =>
  `IF ${isSet(VIEWED_WORKSPACE_SETTING, rows.workspace)} THEN
          ${staticForm(rows, hereName)}
        ${
          otherwise === undefined
            ? ""
            : `ELSIF ${isSet(LOCAL_WORKSPACE_SETTING, rows.workspace)} THEN
          ${shardForm(rows)}
        `
        }ELSE
          ${otherwise ?? shardForm(rows)}
        END IF;`

/** A statement of a commit function: on Citus into the shard when the workspace's shards are here. */
export const commitStatement = (layout: Layout, rows: WorkspaceRows): string =>
  layout === "plain" ? staticForm(rows) : citusForm(rows, staticForm(rows))

/**
 * A statement on rows whose shards are known to be here, on Citus: those of a row trigger on a
 * document table, which fires on the document's shard, so that the workspace's shards of the
 * colocated tables it writes are on the same worker; those of ds_commit_batch_in's workspace. A
 * trigger fired by a statement Citus sent writes the shard by EXECUTE.
 */
export const localStatement = (layout: Layout, rows: WorkspaceRows): string => (layout === "plain" ? staticForm(rows) : citusForm(rows))
