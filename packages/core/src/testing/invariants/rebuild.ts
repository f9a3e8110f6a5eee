import type { Aggregate, StreamRef } from "../../aggregate.js"
import type { DomainEvent } from "../../storage/events.js"
import { sameData } from "../sameData.js"
import { documentsAlong, documentsRebuilt, type Trace } from "../trace.js"

/**
 * Rebuild equals incremental projection, for one stream and without storage: the documents the
 * command path writes command by command (from the record as it stood and each command's events)
 * are exactly those a rebuild writes from the whole history at once.
 */
export const incrementalProblems = <C, E extends DomainEvent, S>(
  aggregate: Pick<Aggregate<C, E, S>, "documents" | "documentsNeedHistory">,
  trace: Trace<C, E, S>,
  stream: StreamRef = { workspaceId: "ws_model", id: "stream_1", definitions: [] }
): Array<string> => {
  const stored = documentsAlong(aggregate, trace, stream)
  const rebuilt = documentsRebuilt(aggregate, trace.history, stream)
  const keys = new Set([...stored.keys(), ...rebuilt.keys()])
  return [...keys].flatMap((key) =>
    sameData(stored.get(key), rebuilt.get(key))
      ? []
      : [
          `${key}: the commands wrote ${JSON.stringify(stored.get(key) ?? null)}, a rebuild writes ${JSON.stringify(rebuilt.get(key) ?? null)}`
        ]
  )
}
