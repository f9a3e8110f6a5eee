import type { CustomFieldObject } from "./definition.js"
import type { CustomFieldInput } from "./input.js"

export interface DefineCustomField {
  readonly type: "DefineCustomField"
  readonly at: string
  readonly definition: CustomFieldInput
}

export interface RemoveCustomField {
  readonly type: "RemoveCustomField"
  readonly object: CustomFieldObject
  readonly key: string
  readonly at: string
}

export type CustomFieldCommand = DefineCustomField | RemoveCustomField
