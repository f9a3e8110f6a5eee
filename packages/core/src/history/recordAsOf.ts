import type { Projected } from "../decider.js"
import type { StoredEvent } from "../storage/events.js"
import { eventAt } from "./recordHistory.js"

/**
 * A record as it stood at an instant: its stream's events up to then, folded with the projection
 * its document is written with, and how many there were (its version then). Events are in time
 * order within a stream (a command's time is never before the stream's last event).
 */
export const recordAsOf = <E>(
  stream: ReadonlyArray<{ readonly event: E; readonly recorded: StoredEvent }>,
  project: (doc: Projected | null, event: E) => Projected | null,
  instant: string
): { readonly record: Projected | null; readonly version: number } => {
  let record: Projected | null = null
  let version = 0
  for (const { event, recorded } of stream) {
    if (eventAt(recorded) > instant) break
    record = project(record, event)
    version++
  }
  return { record, version }
}
