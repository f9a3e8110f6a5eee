import { Schema } from "effect"
import { recordTypes } from "../recordTypes.js"
import type { FieldCheck } from "./checks.js"
import { boolean, date, finiteNumber, nullable, oneOf, text } from "./checks.js"

/** The record types a workspace may give custom fields: every one (recordTypes.ts). */
export const CustomFieldObject = Schema.Literals(recordTypes)
export type CustomFieldObject = typeof CustomFieldObject.Type

export const CustomFieldType = Schema.Literals(["text", "number", "boolean", "date", "enum"])
export type CustomFieldType = typeof CustomFieldType.Type

/** A workspace's definition of one custom field of a record type, as its event carries it. */
export const CustomFieldDefinition = Schema.Struct({
  object: CustomFieldObject,
  key: Schema.String,
  label: Schema.String,
  type: CustomFieldType,
  /** Allowed values; `null` unless `type` is `enum`. */
  options: Schema.NullOr(Schema.Array(Schema.String)),
  created_at: Schema.String
})
export type CustomFieldDefinition = typeof CustomFieldDefinition.Type

export const CUSTOM_TEXT_MAX = 10_000

/** A custom value is typed by its definition; `null` always clears it. */
export const customValueCheck = (definition: CustomFieldDefinition): FieldCheck => {
  switch (definition.type) {
    case "text":
      return nullable(text(CUSTOM_TEXT_MAX))
    case "number":
      return nullable(finiteNumber)
    case "boolean":
      return nullable(boolean)
    case "date":
      return nullable(date)
    case "enum":
      return nullable(oneOf(definition.options ?? []))
  }
}
