import { type InlineWrite, ProjectionFailed, projectionFailed } from "@dealstream/core"
import { Result } from "effect"

/**
 * What a commit's inline projections (Commit.inline) install once it is stored: each one's next
 * state, folded now. A projection without a memory target, or one that throws, fails the commit
 * before anything is written; installing only replaces states, so it cannot fail half way.
 */
export const inlineInstalls = (writes: ReadonlyArray<InlineWrite>): Result.Result<ReadonlyArray<() => void>, ProjectionFailed> => {
  const installs: Array<() => void> = []
  for (const write of writes) {
    if (write.memory === null) {
      return Result.fail(
        new ProjectionFailed({
          projection: write.projection,
          message: `inline projection ${write.projection} has no memory target, and the storage is memory`
        })
      )
    }
    try {
      installs.push(write.memory())
    } catch (cause) {
      return Result.fail(projectionFailed(write.projection, cause))
    }
  }
  return Result.succeed(installs)
}
