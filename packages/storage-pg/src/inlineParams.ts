import { type Commit, type Json, MAX_STATEMENT_PARAMS, ProjectionFailed, runInlineTargets } from "@dealstream/core"
import { Result } from "effect"
import type { InlineStatementParam } from "./commitBatches.js"

/** A parameter as the statement receives it: text, as documented on SqlStatement. */
const asText = (value: Json): string | null =>
  value === null ? null : typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value)

/**
 * The statements a commit's inline projections make (Commit.inline), as ds_commit_batch takes
 * them; undefined for a commit without any. A projection without a PostgreSQL target, one that
 * throws, or a statement with more parameters than it can be given fails the commit before
 * anything is sent.
 */
export const inlineParams = (commit: Commit): Result.Result<ReadonlyArray<InlineStatementParam> | undefined, ProjectionFailed> => {
  if (commit.inline === undefined || commit.inline.length === 0) return Result.succeed(undefined)
  const made = runInlineTargets(commit.inline, "postgres", (write) =>
    write.statements === null
      ? null
      : () => write.statements!().map((statement) => ({ n: write.projection, q: statement.sql, p: statement.params ?? [] }))
  )
  if (Result.isFailure(made)) return Result.fail(made.failure)
  const out: Array<InlineStatementParam> = []
  for (const { n, p, q } of made.success.flat()) {
    if (p.length > MAX_STATEMENT_PARAMS) {
      return Result.fail(
        new ProjectionFailed({
          projection: n,
          message: `inline projection ${n} gave a statement ${p.length} parameters; at most ${MAX_STATEMENT_PARAMS} are taken`
        })
      )
    }
    out.push({ n, q, p: p.map(asText) })
  }
  return Result.succeed(out.length === 0 ? undefined : out)
}
