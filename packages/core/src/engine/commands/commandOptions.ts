import type { Effect } from "effect"
import type { Projected } from "../../decider.js"
import type { JsonObject } from "../../json.js"
import type { QueueSignal } from "../../storage/DeliveryQueue.js"
import type { DocumentWrite } from "../../storage/documents.js"
import type { NewEvent } from "../../storage/events.js"
import type { StreamAppend } from "../../storage/Storage.js"
import type { Settings } from "../base/settings.js"
import type { StreamState } from "../base/streamStates.js"
import type { IfMatch, RequestContext, WriteError } from "../contract/Engine.js"

export interface AlsoContext<E> {
  readonly streamId: string
  readonly at: string
  /** The record's document before this command. */
  readonly before: Projected | null
  /** The events this command adds, with the metadata (event ids) they will be stored with. */
  readonly fresh: ReadonlyArray<{ readonly event: E; readonly metadata: NewEvent["metadata"]; readonly version: number }>
  /** The workspace's settings as this attempt reads them (the webhooks to schedule deliveries for). */
  readonly settings: Settings
}

/** More of a command's commit, decided from its new events: all of it is stored or none of it. */
export interface Addition {
  readonly streams: ReadonlyArray<StreamAppend>
  readonly documents: ReadonlyArray<DocumentWrite>
  /**
   * The data each of the command's new events is announced with (webhook payloads, the change
   * feed), by index, null for one not announced: stored with the event (EventMetadata.payload).
   */
  readonly payloads?: ReadonlyArray<JsonObject | null>
  /** Streams whose earlier events lose their data in this commit (a purge). */
  readonly redactStreams?: ReadonlyArray<string>
  /** Told to the workers of every host once the commit is stored (best effort: they also poll). */
  readonly signals?: ReadonlyArray<QueueSignal>
}

/** What a command is built from, on every attempt. */
export interface CommandInput<S> extends StreamState<S> {
  /**
   * The time of this attempt, never earlier than the stream's last event, so a command that retries
   * after losing a race is recorded after the one that won it and the record's history stays in order.
   */
  readonly at: string
  readonly settings: Settings
}

export interface HandleOptions<C, E, S, P> {
  readonly ctx: RequestContext
  readonly streamId: string
  /**
   * `existing` (the default): an empty stream is 404. `new`: the id was made for this command, so
   * the first attempt does not read the stream (should it exist after all, the commit meets a version
   * conflict and the retry reads it). `any`: the command may start the stream or add to it.
   */
  readonly stream?: "existing" | "new" | "any"
  /**
   * The stream's state as the caller read it just now by other means (the delivery worker, from the
   * document its claim returned): the first attempt decides on it without reading the stream, and
   * the commit checks its version, as with a kept state. Unlike a kept state it serves this command
   * only, so it is allowed for aggregates no host may keep (redactedInPlace).
   */
  readonly known?: StreamState<S>
  readonly ifMatch?: IfMatch
  /**
   * What the command needs of the workspace's settings before the stream is read (the body parsed
   * against the custom field catalog, say), so a bad request is refused before a missing record is;
   * made again on every attempt, and returned with the outcome.
   */
  readonly prepare?: (settings: Settings) => Effect.Effect<P, WriteError>
  /** The command, built from the stream as it is now; built again on every attempt. */
  readonly command: (input: CommandInput<S> & { readonly prepared: P }) => Effect.Effect<C, WriteError>
  /** More of the same commit, decided from the new events: deliveries to schedule or cancel, a purge's redactions. */
  readonly also?: (context: AlsoContext<E>) => Effect.Effect<Addition, WriteError>
}
