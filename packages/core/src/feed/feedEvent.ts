import { apiKeyPayloadInOrder, isApiKeyEventType } from "../apiKey/payload.js"
import { deliveryPayload, payloadDataInOrder, payloadShowsRecord } from "../delivery/payload.js"
import { isJsonObject, type JsonObject } from "../json.js"
import { builtInRecordTypes, type RecordTypeSet } from "../record/recordTypeSet.js"
import { isRedacted, type StoredEvent } from "../storage/events.js"

/**
 * When an event happened as its announcements say (`created_at`): the command's time, which its
 * data holds, the same instant the outbox gave its deliveries. An event whose data is gone (a
 * purge) keeps only the time it was recorded, a moment later.
 */
export const announcedAt = (event: StoredEvent): string => {
  const at = event.data["at"]
  return typeof at === "string" ? at : event.recordedAt
}

/**
 * The `data` an event is announced with, when the event itself tells it: the payload stored with
 * it at commit (a key event's is `{api_key}`, apiKey/payload.ts); `{id}` for a delete or a purge;
 * `{"redacted": true}` for an event whose record was purged since. null for an event recorded
 * before payloads were stored with events, whose data has to be made again from its record (see
 * engine/views/announcedPayloads.ts). Every key event in a workspace's feed was stored with one.
 */
export const storedAnnouncement = (event: StoredEvent, known: RecordTypeSet = builtInRecordTypes): JsonObject | null => {
  const stored = event.metadata.payload
  if (stored !== undefined && isJsonObject(stored)) {
    return isApiKeyEventType(event.type) ? apiKeyPayloadInOrder(stored) : payloadDataInOrder(stored, known)
  }
  if (!payloadShowsRecord(event.type) || isApiKeyEventType(event.type)) return { id: event.streamId }
  if (isRedacted(event.data)) return { redacted: true }
  return null
}

/** An event of the feed: exactly the body a webhook delivery of it POSTs. */
export const feedEvent = (event: StoredEvent, data: JsonObject): JsonObject =>
  deliveryPayload({
    eventId: event.metadata.eventId,
    eventType: event.type,
    createdAt: announcedAt(event),
    workspaceId: event.metadata.workspaceId,
    sequence: event.sequence,
    data
  })
