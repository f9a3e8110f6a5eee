import { lifeEvents, recordEventTypes, type RecordTypePlugin, recordTypes } from "@dealstream/core"

/**
 * The record types an API serves, the built-in ones and the plug-ins it is made with, and the lists
 * of the document that name them: a trash's `type`, the webhook event types. Made as the engine
 * makes its own (a plug-in's events are its life's, in lifeEvents' order), so that the document
 * lists what the engine accepts.
 */
export interface ServedRecordTypes {
  readonly plugins: ReadonlyArray<RecordTypePlugin>
  /** The built-in record types in the API's order, then the plug-ins as given. */
  readonly names: ReadonlyArray<string>
  /** What a webhook may subscribe to: the built-ins' (recordEventTypes), then each plug-in's. */
  readonly eventTypes: ReadonlyArray<string>
}

export const servedRecordTypes = (plugins: ReadonlyArray<RecordTypePlugin>): ServedRecordTypes => ({
  plugins,
  names: [...recordTypes, ...plugins.map((plugin) => plugin.name)],
  eventTypes: [...recordEventTypes, ...plugins.flatMap((plugin) => lifeEvents.map((event) => `${plugin.name}.${event}`))]
})
