import * as fc from "fast-check"
import { customFieldAggregate } from "../../customField/aggregate.js"
import type { CustomFieldCommand, DefineCustomField, RemoveCustomField } from "../../customField/commands.js"
import type { CustomFieldDefined, CustomFieldEvent, CustomFieldRemoved } from "../../customField/events.js"
import type { CustomFieldInput } from "../../customField/input.js"
import { traceCommands } from "../trace.js"
import { instant, streamScript, word } from "./common.js"

const object = fc.constantFrom("contact" as const, "deal" as const)
/** Keys that fit CUSTOM_FIELD_KEY and are no standard field's name, few so that they meet again. */
const key = fc.constantFrom("region", "nick", "score", "tier", "renewal_on")

/** A definition as `parseCustomFieldCreate` leaves it: options exactly for enums. */
export const customFieldInput: fc.Arbitrary<CustomFieldInput> = fc
  .record({
    object,
    key,
    label: word,
    type: fc.constantFrom("text" as const, "number" as const, "boolean" as const, "date" as const, "enum" as const),
    options: fc.uniqueArray(fc.constantFrom("gold", "silver", "bronze"), { minLength: 1, maxLength: 3 })
  })
  .map((d) => ({ ...d, options: d.type === "enum" ? d.options : null }))

export const defineCustomField: fc.Arbitrary<DefineCustomField> = fc
  .record({ at: instant, definition: customFieldInput })
  .map((c) => ({ type: "DefineCustomField", ...c }))
export const removeCustomField: fc.Arbitrary<RemoveCustomField> = fc
  .record({ object, key, at: instant })
  .map((c) => ({ type: "RemoveCustomField", ...c }))

/** A workspace's definitions stream: fields defined, removed and defined again (a clash is refused). */
export const customFieldScript: fc.Arbitrary<ReadonlyArray<CustomFieldCommand>> = streamScript<CustomFieldCommand>(
  defineCustomField,
  fc.oneof({ arbitrary: defineCustomField, weight: 2 }, { arbitrary: removeCustomField, weight: 1 }),
  15
)

export const customFieldHistory: fc.Arbitrary<ReadonlyArray<CustomFieldEvent>> = customFieldScript.map(
  (s) => traceCommands(customFieldAggregate, s).history
)

export const customFieldDefined: fc.Arbitrary<CustomFieldDefined> = defineCustomField.map(({ at, definition }) => ({
  type: "custom_field.defined",
  data: { definition: { ...definition, created_at: at } }
}))
export const customFieldRemoved: fc.Arbitrary<CustomFieldRemoved> = removeCustomField.map(({ at, key, object }) => ({
  type: "custom_field.removed",
  data: { object, key, at }
}))

/** Definitions live in their stream's state, not in a document: `definitions` is what commands see. */
export const customFieldDefinitions = customFieldScript.map((s) => traceCommands(customFieldAggregate, s).state.definitions)

export const customFieldArbitraries = {
  commands: { DefineCustomField: defineCustomField, RemoveCustomField: removeCustomField },
  command: fc.oneof(defineCustomField, removeCustomField) as fc.Arbitrary<CustomFieldCommand>,
  script: customFieldScript,
  history: customFieldHistory,
  events: { "custom_field.defined": customFieldDefined, "custom_field.removed": customFieldRemoved },
  event: fc.oneof(customFieldDefined, customFieldRemoved) as fc.Arbitrary<CustomFieldEvent>,
  definitions: customFieldDefinitions
}
