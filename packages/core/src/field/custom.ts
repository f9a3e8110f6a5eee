import type { FieldCheck } from "./checks.js"
import { boolean, date, finiteNumber, nullable, oneOf, text } from "./checks.js"

/** The record types a workspace may give custom fields. */
export type CustomFieldObject = "contact" | "deal"
export type CustomFieldType = "text" | "number" | "boolean" | "date" | "enum"

/** A workspace's definition of one custom field of contacts or deals. */
export interface CustomFieldDefinition {
  readonly object: CustomFieldObject
  readonly key: string
  readonly label: string
  readonly type: CustomFieldType
  /** Allowed values; `null` unless `type` is `enum`. */
  readonly options: ReadonlyArray<string> | null
  readonly created_at: string
}

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
