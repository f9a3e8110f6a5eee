import type { CustomFieldDefinition, CustomFieldObject } from "../field/custom.js"
import { recordFields } from "../field/records.js"
import type { FieldType, StandardField } from "../field/table.js"
import type { DerivedField } from "./ast.js"

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
  /** Computed when read, not stored (see ast.ts's DerivedField). */
  readonly derived?: DerivedField
}

export type FieldCatalog = ReadonlyMap<string, FieldInfo>

type Capabilities = Partial<Pick<FieldInfo, "filterable" | "sortable" | "searchable" | "wholeWord" | "options" | "custom">>

/** The one builder of a FieldInfo: a field the query language may do nothing with unless told. */
export const fieldInfo = (name: string, type: FieldType, capabilities: Capabilities = {}): FieldInfo => ({
  name,
  type,
  filterable: capabilities.filterable ?? false,
  sortable: capabilities.sortable ?? false,
  searchable: capabilities.searchable ?? false,
  wholeWord: capabilities.wholeWord ?? false,
  options: capabilities.options ?? null,
  custom: capabilities.custom ?? false
})

const infoOf = (field: StandardField): FieldInfo => fieldInfo(field.name, field.type, field)

// Read off the field tables once: catalogOf runs on every list request.
const standardInfos: ReadonlyMap<CustomFieldObject, ReadonlyArray<FieldInfo>> = new Map(
  Object.values(recordFields).map((record) => [record.object, record.standard.map(infoOf)])
)

export const standardFieldsOf = (object: CustomFieldObject): ReadonlyArray<FieldInfo> => standardInfos.get(object) ?? []

export const contactStandardFields: ReadonlyArray<FieldInfo> = standardFieldsOf("contact")
export const dealStandardFields: ReadonlyArray<FieldInfo> = standardFieldsOf("deal")

/** A plug-in record type's fields (record/plugin.ts): its standard fields alone, as no custom field is defined on it. */
export const standardCatalog = (fields: ReadonlyArray<StandardField>): FieldCatalog =>
  new Map(fields.map((field) => [field.name, infoOf(field)]))

/** The fields of a resource: its standard fields and the workspace's custom fields for it. */
export const catalogOf = (object: CustomFieldObject, definitions: ReadonlyArray<CustomFieldDefinition>): FieldCatalog => {
  const catalog = new Map<string, FieldInfo>()
  for (const info of standardFieldsOf(object)) catalog.set(info.name, info)
  // Custom fields by key, the order records show them in (field/recordOrder.ts), whatever order
  // they were defined in.
  for (const def of [...definitions].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    if (def.object !== object || catalog.has(def.key)) continue
    catalog.set(
      def.key,
      fieldInfo(def.key, def.type, {
        filterable: true,
        sortable: true,
        searchable: def.type === "text",
        options: def.options,
        custom: true
      })
    )
  }
  return catalog
}
