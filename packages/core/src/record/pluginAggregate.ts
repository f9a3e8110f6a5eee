import { Schema } from "effect"
import { type Aggregate, recordDocument } from "../aggregate.js"
import type { Decider, Projected } from "../decider.js"
import { uniqueFieldTaken } from "./uniqueField.js"
import type { JsonObject } from "../json.js"
import { standardCatalog } from "../query/fields.js"
import type { PluginCollection } from "../storage/documents.js"
import { recordEvents } from "./events.js"
import { type RecordEvent, recordLifecycle, type RecordState } from "./lifecycle.js"
import type { RecordTypePlugin } from "./plugin.js"

/** The commands of a plug-in's records: its life's, nothing of its own. */
export type PluginCommand =
  | { readonly type: "Create" | "Update"; readonly id: string; readonly at: string; readonly fields: JsonObject }
  | { readonly type: "Delete" | "Restore" | "Purge"; readonly id: string; readonly at: string }

export type PluginAggregate = Aggregate<PluginCommand, RecordEvent<string>, RecordState>

/** The key a record with this value of its plug-in's unique field holds: trimmed and lower-cased, so two spellings are one. */
export const pluginUniqueKey = (plugin: RecordTypePlugin, value: string): string => `${plugin.uniqueField}:${value.trim().toLowerCase()}`

/**
 * A plug-in's record kind, made from its descriptor as a built-in one is written out by hand
 * (company/aggregate.ts): the soft-delete life, its events under its name, one document per record
 * with the search words of its searchable fields and the unique key of its unique field.
 */
export const pluginAggregate = (plugin: RecordTypePlugin): PluginAggregate => {
  const life = recordLifecycle<string, RecordEvent<string>>(plugin.name, plugin.plural)
  const field = plugin.uniqueField
  const uniqueKey = (projected: Projected): string | null => {
    const value = field === null ? null : projected.data[field]
    return projected.deletedAt === null && typeof value === "string" ? pluginUniqueKey(plugin, value) : null
  }
  const decider: Decider<PluginCommand, RecordEvent<string>, RecordState> = {
    initialState: { status: "absent" },
    evolve: life.evolve,
    decide: (command, state) => life.decide(state, command)
  }
  return {
    name: plugin.name,
    prefix: plugin.prefix,
    decider,
    events: recordEvents(plugin.name, Schema.JsonObject).Event as unknown as Schema.Decoder<RecordEvent<string>>,
    project: life.project,
    documents: recordDocument(plugin.name as PluginCollection, life.project, { searched: standardCatalog(plugin.fields), uniqueKey }),
    collections: [plugin.name as PluginCollection],
    rebuilt: true,
    purge: (id, at) => ({ type: "Purge", id, at }),
    uniqueKeyTaken: uniqueFieldTaken(plugin.name, field ?? "")
  }
}
