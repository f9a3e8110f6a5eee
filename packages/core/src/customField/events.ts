import type { DomainEvent } from "../storage/events.js"
import type { CustomFieldDefinition, CustomFieldObject } from "./definition.js"

// A mapped copy, because an interface does not count as a JSON object for `DomainEvent`.
type DefinitionData = { readonly [K in keyof CustomFieldDefinition]: CustomFieldDefinition[K] }

/** `definition.created_at` is the time of the event. */
export type CustomFieldDefined = DomainEvent<"custom_field.defined", { readonly definition: DefinitionData }>

export type CustomFieldRemoved = DomainEvent<"custom_field.removed", {
  readonly object: CustomFieldObject
  readonly key: string
  readonly at: string
}>

export type CustomFieldEvent = CustomFieldDefined | CustomFieldRemoved
