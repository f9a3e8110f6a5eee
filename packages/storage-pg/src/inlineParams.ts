import { type Commit, type Json, MAX_STATEMENT_PARAMS, ProjectionFailed, projectionFailed } from "@dealstream/core"
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
  const out: Array<InlineStatementParam> = []
  for (const write of commit.inline) {
    if (write.statements === null) {
      return Result.fail(
        new ProjectionFailed({
          projection: write.projection,
          message: `inline projection ${write.projection} has no postgres target, and the storage is PostgreSQL`
        })
      )
    }
    try {
      for (const statement of write.statements()) {
        const params = statement.params ?? []
        if (params.length > MAX_STATEMENT_PARAMS) {
          return Result.fail(
            new ProjectionFailed({
              projection: write.projection,
              message: `inline projection ${write.projection} gave a statement ${params.length} parameters; at most ${MAX_STATEMENT_PARAMS} are taken`
            })
          )
        }
        out.push({ n: write.projection, q: statement.sql, p: params.map(asText) })
      }
    } catch (cause) {
      return Result.fail(projectionFailed(write.projection, cause))
    }
  }
  return Result.succeed(out.length === 0 ? undefined : out)
}
