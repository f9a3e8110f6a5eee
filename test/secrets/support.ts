import * as Reactivity from "effect/reactivity/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { createHash } from "node:crypto"
import { Effect, Redacted } from "effect"

export const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

/**
 * How many rows of each table of the database hold `needle` anywhere: every column of every row of
 * every table in `public`, read as JSON text (event payloads and metadata, documents, arrays).
 */
export const rowsContaining = (url: string, needle: string): Promise<Record<string, number>> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const sql = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 })
        const tables = yield* sql.unsafe<{ readonly table_name: string }>(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`
        )
        const counts: Record<string, number> = {}
        for (const { table_name } of tables) {
          const [row] = yield* sql.unsafe<{ readonly n: string }>(
            `SELECT count(*) AS n FROM "${table_name}" t WHERE strpos(row_to_json(t)::text, $1) > 0`,
            [needle]
          )
          counts[table_name] = Number(row!.n)
        }
        return counts
      })
    ).pipe(Effect.provide(Reactivity.layer), Effect.orDie)
  )

/** Polls `check` until it holds, or fails with `what` after the deadline (a bound, not a measurement). */
export const until = async (check: () => Promise<boolean>, what: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
