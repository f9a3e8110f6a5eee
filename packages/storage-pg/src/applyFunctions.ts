import { createHash } from "node:crypto"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { StoredFunction } from "./functions/index.js"
import { tables } from "./tables.js"

const hashOf = (text: string) => createHash("sha256").update(text).digest("hex")

/**
 * Runs the text of each stored function whose text is not the one last run here (its SHA-256 in
 * ds_functions) or which is missing from the schema, and of no other. An unchanged function is not
 * touched: replacing it would make every session of every host, at each host's start, plan its
 * statements again. Forgets the functions `functions` no longer has (a versioned migration dropped
 * them). Part of migrate's transaction; returns the names it ran.
 */
export const applyFunctions = (sql: SqlClient, functions: ReadonlyArray<StoredFunction>): Effect.Effect<ReadonlyArray<string>, SqlError> =>
  Effect.gen(function* () {
    yield* sql.unsafe(
      `CREATE TABLE IF NOT EXISTS ${tables.functions} (
        name text PRIMARY KEY,
        hash text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`
    )
    const rows = yield* sql.unsafe<{ readonly name: string; readonly hash: string }>(
      `SELECT f.name, f.hash FROM ${tables.functions} AS f
      WHERE EXISTS (SELECT 1 FROM pg_proc AS p WHERE p.proname = f.name AND p.pronamespace = to_regnamespace(current_schema()))`
    )
    const applied = new Map(rows.map((row) => [row.name, row.hash]))
    const ran: Array<string> = []
    for (const stored of functions) {
      const hash = hashOf(stored.text)
      if (applied.get(stored.name) === hash) continue
      yield* sql.unsafe(stored.text)
      yield* sql.unsafe(
        `INSERT INTO ${tables.functions} (name, hash) VALUES ($1, $2)
        ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, applied_at = now()`,
        [stored.name, hash]
      )
      ran.push(stored.name)
    }
    yield* sql.unsafe(`DELETE FROM ${tables.functions} WHERE name <> ALL ($1::text[])`, [functions.map((f) => f.name)])
    return ran
  })
