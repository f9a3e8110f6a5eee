import type { CustomFieldDefinition, CustomFieldObject } from "../customField/definition.js"
import type { FieldType } from "./ast.js"

/** What the query language may do with one field of a resource. */
export interface FieldInfo {
  readonly name: string
  readonly type: FieldType
  readonly filterable: boolean
  readonly sortable: boolean
  /** Words of the value are matched by `search`. */
  readonly searchable: boolean
  /** The whole value also counts as one word for `search` (email). */
  readonly wholeWord: boolean
  /** Allowed values of an `enum` field. */
  readonly options: ReadonlyArray<string> | null
  readonly custom: boolean
}

export type FieldCatalog = ReadonlyMap<string, FieldInfo>

const field = (
  name: string,
  type: FieldType,
  flags: Partial<Pick<FieldInfo, "filterable" | "sortable" | "searchable" | "wholeWord" | "options">> = {}
): FieldInfo => ({
  name,
  type,
  filterable: flags.filterable ?? true,
  sortable: flags.sortable ?? false,
  searchable: flags.searchable ?? false,
  wholeWord: flags.wholeWord ?? false,
  options: flags.options ?? null,
  custom: false
})

export const contactStandardFields: ReadonlyArray<FieldInfo> = [
  field("id", "id"),
  field("email", "text", { sortable: true, searchable: true, wholeWord: true }),
  field("first_name", "text", { sortable: true, searchable: true }),
  field("last_name", "text", { sortable: true, searchable: true }),
  field("phone", "text", { searchable: true }),
  field("title", "text", { searchable: true }),
  field("company_id", "id"),
  field("source", "text"),
  field("owner_id", "id"),
  field("created_at", "timestamp", { sortable: true }),
  field("updated_at", "timestamp", { sortable: true })
]

export const dealStatuses = ["open", "won", "lost"] as const
export type DealStatus = typeof dealStatuses[number]

export const dealStandardFields: ReadonlyArray<FieldInfo> = [
  field("id", "id"),
  field("name", "text", { sortable: true, searchable: true }),
  field("pipeline_id", "id"),
  field("stage_id", "id"),
  field("value", "number", { sortable: true }),
  field("currency", "text"),
  field("expected_close_date", "date", { sortable: true }),
  field("owner_id", "id"),
  field("contact_ids", "id_array", { filterable: false }),
  field("status", "enum", { options: dealStatuses }),
  field("created_at", "timestamp", { sortable: true }),
  field("updated_at", "timestamp", { sortable: true })
]

/** Keys of a record that the service computes; a body may not set them. */
export const contactComputedKeys: ReadonlyArray<string> = ["deal_ids", "company_ids", "deals", "activities"]
export const dealComputedKeys: ReadonlyArray<string> = []

export const standardFieldsOf = (object: CustomFieldObject): ReadonlyArray<FieldInfo> =>
  object === "contact" ? contactStandardFields : dealStandardFields

/** The fields of a resource: its standard fields and the workspace's custom fields for it. */
export const catalogOf = (
  object: CustomFieldObject,
  definitions: ReadonlyArray<CustomFieldDefinition>
): FieldCatalog => {
  const catalog = new Map<string, FieldInfo>()
  for (const info of standardFieldsOf(object)) catalog.set(info.name, info)
  for (const def of definitions) {
    if (def.object !== object || catalog.has(def.key)) continue
    catalog.set(def.key, {
      name: def.key,
      type: def.type,
      filterable: true,
      sortable: true,
      searchable: def.type === "text",
      wholeWord: false,
      options: def.options,
      custom: true
    })
  }
  return catalog
}
