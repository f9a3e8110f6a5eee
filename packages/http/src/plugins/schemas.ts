import type { RecordTypePlugin } from "@dealstream/core"
import { Schema } from "effect"
import { answerFields, createFields, PATCH_DESCRIPTION, patchFields } from "../fieldSchemas.js"

/**
 * A plug-in's record, a new one's body and a patch, read off its fields as a built-in record type's
 * are and named after its title (`Note`, `NoteInput`, `NotePatch`). Custom fields are defined on the
 * built-in record types only, so these are closed: an answer holds the plug-in's fields alone, and
 * the engine refuses a body's unknown key (400).
 */
export const pluginSchemas = (plugin: RecordTypePlugin) => ({
  record: Schema.Struct(answerFields(plugin.fields)).annotate({ identifier: plugin.title }),
  input: Schema.Struct(createFields(plugin.fields)).annotate({
    identifier: `${plugin.title}Input`,
    description: `A new ${plugin.name}. An unknown key is 400.`
  }),
  patch: Schema.Struct(patchFields(plugin.fields)).annotate({
    identifier: `${plugin.title}Patch`,
    description: PATCH_DESCRIPTION
  })
})

export type PluginSchemas = ReturnType<typeof pluginSchemas>
