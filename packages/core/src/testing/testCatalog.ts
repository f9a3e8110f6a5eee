import type { FieldRef } from "../query/ast.js"
import { type FieldCatalog, type FieldInfo, fieldInfo } from "../query/fields.js"

// One field of every type, shared by the query module's tests.
const info = (name: string, type: FieldInfo["type"], flags: Partial<FieldInfo> = {}): FieldInfo =>
  fieldInfo(name, type, { filterable: true, sortable: true, ...flags })

export const testFields: ReadonlyArray<FieldInfo> = [
  info("name", "text", { searchable: true }),
  info("email", "text", { searchable: true, wholeWord: true }),
  info("score", "number"),
  info("vip", "boolean"),
  info("tier", "enum", { options: ["gold", "silver", "bronze"] }),
  info("day", "date"),
  info("at", "timestamp"),
  info("owner", "id", { sortable: false }),
  info("tags", "id_array", { filterable: false, sortable: false }),
  info("secret", "text", { filterable: false, sortable: false })
]

export const testCatalog: FieldCatalog = new Map(testFields.map((field) => [field.name, field]))

export const refOf = (name: string): FieldRef => {
  const field = testCatalog.get(name)
  if (field === undefined) throw new Error(`no test field ${name}`)
  return { name: field.name, type: field.type }
}
