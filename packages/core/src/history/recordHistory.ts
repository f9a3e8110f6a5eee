import { isApiKeyId } from "../apiKey/input.js"
import type { Projected } from "../decider.js"
import { isRecordTime } from "../field/table.js"
import type { Json, JsonObject } from "../json.js"
import type { FieldCatalog } from "../query/fields.js"
import type { StoredEvent } from "../storage/events.js"

// Type aliases, not interfaces: a page's rows are JsonObjects, which interfaces are not assignable to.
export type FieldChange = {
  readonly field: string
  readonly from: Json
  readonly to: Json
}

/** One event of a record's history as the API shows it. */
export type HistoryEntry = {
  readonly event_id: string
  readonly type: string
  readonly at: string
  /** The API key that asked for it; null for the engine's own work (a purge, a worker). */
  readonly actor: { readonly api_key_id: string } | null
  readonly request_id: string | null
  readonly changes: ReadonlyArray<FieldChange>
}

/**
 * The fields a history compares, in the catalog's order: the record's own times aside, which every
 * event moves and which the entry's `at` already says (a task's due_at and done_at are compared).
 */
const comparedFields = (catalog: FieldCatalog): ReadonlyArray<string> =>
  [...catalog.values()].filter((info) => info.custom || !isRecordTime(info.name)).map((info) => info.name)

/** When an event happened: its own `at` (the time its record shows), or when it was logged. */
export const eventAt = (stored: StoredEvent): string => {
  const at = stored.data["at"]
  return typeof at === "string" ? at : stored.recordedAt
}

const same = (a: Json, b: Json): boolean => a === b || JSON.stringify(a) === JSON.stringify(b)

/** The fields whose shown value differs between two states of a record (null: it did not exist). */
export const fieldChanges = (before: JsonObject | null, after: JsonObject | null, catalog: FieldCatalog): ReadonlyArray<FieldChange> =>
  comparedFields(catalog).flatMap((field) => {
    const from = before?.[field] ?? null
    const to = after?.[field] ?? null
    return same(from, to) ? [] : [{ field, from, to }]
  })

/**
 * A record's history: per event of its stream, what it changed, found by projecting the record
 * before and after it with the same projection its document is written with, and showing both
 * through `show` (the API's visible fields). Pure: the caller reads and decodes the stream.
 */
export const recordHistory = <E>(
  stream: ReadonlyArray<{ readonly event: E; readonly recorded: StoredEvent }>,
  project: (doc: Projected | null, event: E) => Projected | null,
  show: (data: JsonObject) => JsonObject,
  catalog: FieldCatalog
): ReadonlyArray<HistoryEntry> => {
  const entries: Array<HistoryEntry> = []
  let record: Projected | null = null
  for (const { event, recorded } of stream) {
    const next = project(record, event)
    const actor = recorded.metadata.actor
    entries.push({
      event_id: recorded.metadata.eventId,
      type: recorded.type,
      at: eventAt(recorded),
      actor: actor !== null && isApiKeyId(actor) ? { api_key_id: actor } : null,
      request_id: recorded.metadata.requestId,
      changes: fieldChanges(record === null ? null : show(record.data), next === null ? null : show(next.data), catalog)
    })
    record = next
  }
  return entries
}
