import type { RecordTypePlugin, StandardField } from "@dealstream/core"
import { securedGroup } from "../documented.js"
import { searchParams } from "../parameters.js"
import { batchEndpoint, recordEndpoints } from "../recordEndpoints.js"
import type { PluginSchemas } from "./schemas.js"

/** A plug-in's collection: `/v1/<plural>`. */
export const collectionOf = (plugin: RecordTypePlugin): `/v1/${string}` => `/v1/${plugin.plural}`

/** `a, b and c` of the fields `which` keeps; empty for none. */
const namesOf = (fields: ReadonlyArray<StandardField>, which: (field: StandardField) => boolean) => {
  const names = fields.filter(which).map((field) => field.name)
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`
}

/** What its list searches and sorts on: the fields its table marks so, as the engine's catalog of it reads them. */
const listDescription = (plugin: RecordTypePlugin) => {
  const searched = namesOf(plugin.fields, (field) => field.searchable)
  const sorted = namesOf(plugin.fields, (field) => field.sortable)
  return [searched === "" ? null : `Search: words of ${searched}.`, sorted === "" ? null : `Sort fields: ${sorted}.`]
    .filter((sentence) => sentence !== null)
    .join(" ")
}

/**
 * A plug-in's resource, as a built-in record type's with the standard endpoints (companies/Api.ts):
 * the group is named by its plural, as its path is, and its batch upserts on its unique field.
 */
export const pluginGroup = (plugin: RecordTypePlugin, schemas: PluginSchemas) => {
  const resource = { name: plugin.title, type: plugin.name, collection: collectionOf(plugin) }
  const records = recordEndpoints({
    ...resource,
    ...schemas,
    list: { query: searchParams, description: listDescription(plugin) },
    get: {}
  })
  return securedGroup(
    plugin.plural,
    records.list,
    records.export,
    records.get,
    batchEndpoint(resource, plugin.uniqueField),
    records.create,
    records.update,
    records.delete,
    records.restore,
    records.history
  )
}

export type PluginGroup = ReturnType<typeof pluginGroup>
