import { builtInRecordTypes, type RecordTypeSet } from "../record/recordTypeSet.js"
import type { DealStageChanged } from "../deal/events.js"
import { timelineEntryOf, timelineEntryView } from "../deal/projection.js"
import { inRecordOrder } from "../field/index.js"
import type { JsonObject } from "../json.js"
import { isJsonObject } from "../json.js"
import type { DomainEvent } from "../storage/events.js"
import { WEBHOOK_TEST_EVENT } from "../webhook/eventTypes.js"

export interface DeliveryPayloadInput {
  readonly eventId: string
  readonly eventType: string
  readonly createdAt: string
  readonly workspaceId: string
  readonly sequence: number
  readonly data: JsonObject
}

/**
 * The POSTed body. Key order is part of the contract: the serialised bytes are what gets signed,
 * and the same event must serialise to the same bytes on every attempt.
 */
export const deliveryPayload = ({ createdAt, data, eventId, eventType, sequence, workspaceId }: DeliveryPayloadInput): JsonObject => ({
  id: eventId,
  type: eventType,
  created_at: createdAt,
  workspace_id: workspaceId,
  sequence,
  data
})

/**
 * A test's payload (POST /v1/webhooks/:id/test): `webhook.test`, naming the webhook tested. Its
 * `sequence` is 0, before every event's (the log's start at 1): it has no position in the log.
 */
export const testPayload = ({
  createdAt,
  eventId,
  webhookId,
  workspaceId
}: {
  readonly eventId: string
  readonly createdAt: string
  readonly workspaceId: string
  readonly webhookId: string
}): DeliveryPayloadInput => ({
  eventId,
  eventType: WEBHOOK_TEST_EVENT,
  createdAt,
  workspaceId,
  sequence: 0,
  data: { webhook_id: webhookId }
})

const isStageChange = (event: DomainEvent): event is DealStageChanged => event.type === "deal.stage_changed"

const changedFields = (event: DomainEvent): ReadonlyArray<string> => {
  const changed = event.data["changed"]
  return isJsonObject(changed) ? Object.keys(changed) : []
}

/**
 * The payload's `data` for a record's event, given the record's API document after it.
 * null for events no webhook can subscribe to (purges).
 */
export const payloadDataFor = (event: DomainEvent, record: JsonObject, known: RecordTypeSet = builtInRecordTypes): JsonObject | null => {
  // A record type's events are `<type>.<event>` (recordTypes.ts); a record shows under its type's name.
  const dot = event.type.indexOf(".")
  const type = event.type.slice(0, dot)
  if (dot < 0 || !known.has(type)) return null
  switch (event.type.slice(dot + 1)) {
    case "created":
    case "restored":
      return { [type]: record }
    case "updated":
      return { [type]: record, changed_fields: changedFields(event) }
    case "stage_changed": {
      if (type !== "deal") return null
      const id = record["id"]
      const entry = isStageChange(event) && typeof id === "string" ? timelineEntryOf(id, event) : null
      return { deal: record, timeline_entry: entry }
    }
    case "merged": {
      const ids = (event.data as { readonly merged_ids?: ReadonlyArray<string> }).merged_ids ?? []
      return { [type]: record, merged_ids: [...ids] }
    }
    case "unmerged":
      return { [type]: record, restored_id: (event.data as { readonly restored_id?: string }).restored_id ?? null }
    case "deleted":
    case "erased":
      // The record has left every view (an erased one every store too); the receiver learns only which one.
      return { id: record["id"] ?? null }
    default:
      return null
  }
}

/**
 * Whether an event's payload shows its record (a delete's, a purge's and an erasure's name only its
 * id: the record has left every view).
 */
export const payloadShowsRecord = (type: string): boolean =>
  !type.endsWith(".deleted") && !type.endsWith(".purged") && !type.endsWith(".erased")

/**
 * A stored payload's `data` with every record in the API's key order: a delivery document read
 * from PostgreSQL's jsonb has its keys by length, and what is sent (and signed) must show a record
 * as every answer does. A function of the stored data alone, so every attempt and replay sends the
 * same bytes.
 */
export const payloadDataInOrder = (data: JsonObject, known: RecordTypeSet = builtInRecordTypes): JsonObject => {
  const out: Record<string, JsonObject[string]> = {}
  const at = (key: string) => {
    if (!Object.hasOwn(data, key)) return
    const value = data[key]!
    const fields = known.fields(key)
    out[key] = !isJsonObject(value)
      ? value
      : fields !== undefined
        ? inRecordOrder(value, fields)
        : key === "timeline_entry"
          ? timelineEntryView(value)
          : value
  }
  // The members in payloadDataFor's order, then any other as stored (none today).
  const members: ReadonlyArray<string> = ["id", ...known.names, "changed_fields", "timeline_entry", "merged_ids", "restored_id"]
  for (const key of members) at(key)
  for (const key of Object.keys(data)) if (!members.includes(key)) at(key)
  return out
}
