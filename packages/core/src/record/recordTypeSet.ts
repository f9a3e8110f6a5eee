import type { CustomFieldObject } from "../field/custom.js"
import { recordFields } from "../field/records.js"
import type { RecordFields } from "../field/table.js"
import { isRecordType, lifeEvents, recordEventTypes, recordTypes } from "../recordTypes.js"
import type { RecordTypePlugin } from "./plugin.js"

/**
 * The record types one engine serves, the built-in ones and its plug-ins, and the lists that follow
 * from them: what a webhook may subscribe to, what the feed hands out, what the trash holds. Every
 * check of a record type's name or of an event type goes through one of these, so a plug-in is
 * announced, fed and trashed like a built-in record type.
 */
export interface RecordTypeSet {
  /** The built-in record types in the API's order, then the plug-ins in the order given. */
  readonly names: ReadonlyArray<string>
  readonly plugins: ReadonlyArray<RecordTypePlugin>
  /** The event types a webhook may subscribe to: the built-ins' (recordEventTypes), then each plug-in's life. */
  readonly eventTypes: ReadonlyArray<string>
  /** What the change feed hands out: those, then each record type's purge tombstone, then KEY_FEED_TYPES. */
  readonly feedTypes: ReadonlyArray<string>
  /**
   * The prefixes of the types whose commits wake the feed's readers (`contact.`, `api_key.`): every
   * record type's events and the keys', which the feed hands out; commits of other events
   * (deliveries' attempts) wake no reader.
   */
  readonly feedPrefixes: ReadonlyArray<string>
  readonly has: (name: string) => boolean
  readonly plugin: (name: string) => RecordTypePlugin | undefined
  /** The fields of the record type so named, built-in or plug-in. */
  readonly fields: (name: string) => RecordFields | undefined
}

/**
 * The events of the workspace's API keys (apiKey/events.ts, whose tests check the two agree), which
 * its change feed hands out after its records' (the key as the API shows it: never the key, never
 * its digest). No webhook subscribes to them: they are not record events.
 */
export const KEY_FEED_TYPES: ReadonlyArray<string> = ["api_key.created", "api_key.updated", "api_key.revoked"]

/** A plug-in's fields as the field modules read a record type's: no custom fields are defined on it. */
export const pluginFields = (plugin: RecordTypePlugin): RecordFields => ({
  // Custom field definitions name a built-in object only, so none is ever read for a plug-in.
  object: plugin.name as CustomFieldObject,
  standard: plugin.fields,
  computed: []
})

export const recordTypeSet = (plugins: ReadonlyArray<RecordTypePlugin>): RecordTypeSet => {
  const names: ReadonlyArray<string> = [...recordTypes, ...plugins.map((plugin) => plugin.name)]
  const [created, updated, deleted, restored] = lifeEvents
  const eventTypes = [
    ...recordEventTypes,
    ...plugins.flatMap((plugin) => [created, updated, deleted, restored].map((event) => `${plugin.name}.${event}`))
  ]
  const byName = new Map(plugins.map((plugin) => [plugin.name, plugin]))
  const known = new Set(names)
  return {
    names,
    plugins,
    eventTypes,
    feedTypes: [...eventTypes, ...names.map((name) => `${name}.purged`), ...KEY_FEED_TYPES],
    feedPrefixes: [...names.map((name) => `${name}.`), "api_key."],
    has: (name) => known.has(name),
    plugin: (name) => byName.get(name),
    fields: (name) => {
      if (isRecordType(name)) return recordFields[name]
      const plugin = byName.get(name)
      return plugin === undefined ? undefined : pluginFields(plugin)
    }
  }
}

/** The built-in record types alone: what a process given no plug-in serves. */
export const builtInRecordTypes: RecordTypeSet = recordTypeSet([])
