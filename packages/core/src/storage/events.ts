import { Schema } from "effect"
import { isJsonObject, type Json, type JsonObject } from "../json.js"

/** What a decider emits: a named fact with its data. Time and ids are already inside `data`. */
export interface DomainEvent<Type extends string = string, Data extends JsonObject = JsonObject> {
  readonly type: Type
  readonly data: Data
}

/**
 * The Schema of one event as the log stores it: its type and the fields of its data. An aggregate's
 * events are a union of these; a stream is decoded with it when it is read (see aggregate.ts).
 * Decoding keeps the fields in the order written here, so write them in the order deciders make them.
 */
export const DomainEvent = <const Type extends string, const Fields extends Schema.Struct.Fields>(type: Type, data: Fields) =>
  Schema.Struct({ type: Schema.Literal(type), data: Schema.Struct(data) })

export interface EventMetadata {
  readonly workspaceId: string
  /** `evt_…`: the public id of the event (webhook payload id, Standard Webhooks `webhook-id`). */
  readonly eventId: string
  readonly requestId: string | null
  readonly actor: string | null
  /**
   * The `data` the event is announced with (webhook payloads, the change feed): the record as the
   * API showed it when the event was committed. Only on announced events, and dropped when the
   * event's data is redacted (a purge).
   */
  readonly payload?: JsonObject
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

export const isRedacted = (data: Json): boolean => isJsonObject(data) && data["redacted"] === true
