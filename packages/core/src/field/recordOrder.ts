import type { JsonObject } from "../json.js"
import { isRecordTime, type RecordFields, type StandardField } from "./table.js"

const isTimestamp = (field: StandardField) => isRecordTime(field.name)

/**
 * A record's keys in the one order the API shows them (API.md, Conventions): `id` and the other
 * standard fields in field-table order, then custom keys sorted by key (so the order follows from
 * the record alone: no catalog, no definition history), then the standard
 * timestamps, then the derived fields. Whatever order a storage returned the keys in: PostgreSQL's
 * jsonb returns them by length. Values are kept as they are.
 */
export const inRecordOrder = (data: JsonObject, fields: RecordFields): JsonObject => {
  const out: Record<string, JsonObject[string]> = {}
  const put = (key: string) => {
    if (Object.hasOwn(data, key)) out[key] = data[key]!
  }
  const known = new Set<string>(fields.computed)
  for (const field of fields.standard) {
    known.add(field.name)
    if (!isTimestamp(field)) put(field.name)
  }
  // Custom keys are ASCII (customField/input.ts): the default sort is code-point order for them.
  for (const key of Object.keys(data)
    .filter((key) => !known.has(key))
    .sort())
    put(key)
  for (const field of fields.standard) if (isTimestamp(field)) put(field.name)
  for (const key of fields.computed) put(key)
  return out
}
