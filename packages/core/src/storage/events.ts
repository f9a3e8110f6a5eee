import type { Json, JsonObject } from "../json.js"

/** What a decider emits: a named fact with its data. Time and ids are already inside `data`. */
export interface DomainEvent<Type extends string = string, Data extends JsonObject = JsonObject> {
  readonly type: Type
  readonly data: Data
}

export interface EventMetadata {
  readonly workspaceId: string
  /** `evt_…`: the public id of the event (webhook payload id, Standard Webhooks `webhook-id`). */
  readonly eventId: string
  readonly requestId: string | null
  readonly actor: string | null
}

/** An event ready to append: the engine has attached metadata. */
export interface NewEvent {
  readonly type: string
  readonly data: JsonObject
  readonly metadata: EventMetadata
}

/** An event as the log holds it. `sequence` is the global position, increasing with commit order. */
export interface StoredEvent extends NewEvent {
  readonly sequence: number
  readonly streamId: string
  /** 1 for the first event of a stream. */
  readonly streamVersion: number
  readonly recordedAt: string
}

export const isRedacted = (data: Json): boolean =>
  typeof data === "object" && data !== null && !Array.isArray(data) && (data as JsonObject)["redacted"] === true
