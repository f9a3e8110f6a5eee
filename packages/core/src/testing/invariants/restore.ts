import type { Projected } from "../../decider.js"
import { sameData } from "../sameData.js"

/** What restoreProblems reads of a traced command (TracedCommand has it). */
export interface Restorable {
  readonly events: ReadonlyArray<{ readonly type: string }>
  readonly before: Projected | null
  readonly after: Projected | null
}

/**
 * Delete then restore is identity: after every accepted restore, the record's document is exactly
 * the one it had before the delete it undoes. Over a trace of one record's stream (traceCommands).
 */
export const restoreProblems = (steps: ReadonlyArray<Restorable>): Array<string> => {
  const problems: Array<string> = []
  let beforeDelete: Projected | null = null
  steps.forEach((step, i) => {
    if (step.events.some((event) => event.type.endsWith(".deleted"))) beforeDelete = step.before
    if (step.events.some((event) => event.type.endsWith(".restored"))) {
      if (!sameData(step.after, beforeDelete)) {
        problems.push(
          `command ${i} restored ${JSON.stringify(step.after)}, not the document before the delete ${JSON.stringify(beforeDelete)}`
        )
      }
    }
  })
  return problems
}
