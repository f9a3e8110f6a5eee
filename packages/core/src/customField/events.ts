import { Schema } from "effect"
import { CustomFieldDefinition, CustomFieldObject } from "../field/custom.js"
import { DomainEvent } from "../storage/events.js"

/** `definition.created_at` is the time of the event. */
export const CustomFieldDefined = DomainEvent("custom_field.defined", { definition: CustomFieldDefinition })
export type CustomFieldDefined = typeof CustomFieldDefined.Type

export const CustomFieldRemoved = DomainEvent("custom_field.removed", {
  object: CustomFieldObject,
  key: Schema.String,
  at: Schema.String
})
export type CustomFieldRemoved = typeof CustomFieldRemoved.Type

export const CustomFieldEvent = Schema.Union([CustomFieldDefined, CustomFieldRemoved])
export type CustomFieldEvent = typeof CustomFieldEvent.Type
