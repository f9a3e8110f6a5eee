import type { DealEvent } from "../deal/events.js"
import type { JsonObject } from "../json.js"
import type { StoredEvent } from "../storage/events.js"
import type { ContactEvent } from "./events.js"

/** The feed shows this many entries at most, the newest. */
export const ACTIVITY_LIMIT = 100

/** An event of the contact's stream or of one of its deals', decoded, with where it was recorded. */
export interface FeedEvent {
  readonly event: ContactEvent | DealEvent
  readonly recorded: Pick<StoredEvent, "sequence" | "streamId" | "recordedAt" | "metadata">
}

/** One entry of the feed; null for events the feed leaves out (purges). */
export const activityOf = ({ event, recorded }: FeedEvent): JsonObject | null => {
  const entry = (data: JsonObject) => ({
    id: `act_${recorded.metadata.eventId.replace(/^evt_/, "")}`,
    type: event.type,
    occurred_at: event.data.at,
    data
  })
  const dealId = recorded.streamId
  switch (event.type) {
    case "contact.created":
      return entry(event.data.fields)
    case "contact.updated":
      return entry({ changed_fields: event.data.changed })
    case "contact.deleted":
    case "contact.restored":
      return entry({})
    case "deal.created":
      return entry({ deal_id: dealId, ...event.data.fields })
    case "deal.updated":
      return entry({ deal_id: dealId, changed_fields: event.data.changed })
    case "deal.stage_changed":
      return entry({
        deal_id: dealId,
        from_stage_id: event.data.from_stage_id,
        to_stage_id: event.data.to_stage_id,
        reason: event.data.reason
      })
    case "contact.purged":
    case "deal.deleted":
    case "deal.restored":
    case "deal.purged":
      return null
  }
}

/**
 * The contact's activity feed (`expand=activities`): its own events and those of its deals, newest
 * first by their place in the log, at most ACTIVITY_LIMIT.
 */
export const activityFeed = (events: ReadonlyArray<FeedEvent>): ReadonlyArray<JsonObject> =>
  [...events]
    .sort((a, b) => b.recorded.sequence - a.recorded.sequence)
    .flatMap((recorded) => {
      const activity = activityOf(recorded)
      return activity === null ? [] : [activity]
    })
    .slice(0, ACTIVITY_LIMIT)
