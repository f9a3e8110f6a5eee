import { Effect } from "effect"
import { recordCreateParser, recordPatchParser } from "../../field/recordBody.js"
import type { JsonObject } from "../../json.js"
import { standardCatalog } from "../../query/fields.js"
import type { RecordEvent, RecordState } from "../../record/lifecycle.js"
import type { PluginAggregate, PluginCommand } from "../../record/pluginAggregate.js"
import { pluginUniqueKey } from "../../record/pluginAggregate.js"
import type { RecordTypePlugin } from "../../record/plugin.js"
import { pluginFields } from "../../record/recordTypeSet.js"
import type { PluginCollection } from "../../storage/documents.js"
import { visibleFields } from "../base/reads.js"
import type { RecordKind } from "./recordService.js"

/**
 * A plug-in record type as the generic service serves it: its fields read and shown by its field
 * table, no link to any other record, its life's commands.
 */
export const pluginKind = (
  plugin: RecordTypePlugin,
  aggregate: PluginAggregate
): RecordKind<PluginCommand, RecordEvent<string>, RecordState, JsonObject> => {
  const fields = pluginFields(plugin)
  const catalog = standardCatalog(plugin.fields)
  const field = plugin.uniqueField
  return {
    aggregate,
    collection: plugin.name as PluginCollection,
    catalog: () => catalog,
    parse: { create: recordCreateParser(fields), patch: recordPatchParser(fields) },
    commands: {
      create: ({ at, id }, parsed) => Effect.succeed({ type: "Create", id, at, fields: parsed }),
      update: ({ at, id }, parsed) => Effect.succeed({ type: "Update", id, at, fields: parsed }),
      delete: (id, at) => ({ type: "Delete", id, at }),
      restore: (id, at) => ({ type: "Restore", id, at })
    },
    views: (_ctx, rows, shown) => Effect.succeed(rows.map((row) => visibleFields(row.data, shown))),
    createdView: (_id, data, shown) => visibleFields(data, shown),
    ...(field === null ? {} : { unique: { field, key: (value: string) => pluginUniqueKey(plugin, value) } })
  }
}
