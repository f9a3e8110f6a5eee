/** A workspace's definition of one custom field of contacts or deals. */
export type CustomFieldObject = "contact" | "deal"
export type CustomFieldType = "text" | "number" | "boolean" | "date" | "enum"

export interface CustomFieldDefinition {
  readonly object: CustomFieldObject
  readonly key: string
  readonly label: string
  readonly type: CustomFieldType
  /** Allowed values; `null` unless `type` is `enum`. */
  readonly options: ReadonlyArray<string> | null
  readonly created_at: string
}
