import type { JsonObject } from "../json.js"
import type { FieldRef } from "./ast.js"
import type { FieldCatalog } from "./fields.js"
import { scalarOf } from "./fieldValue.js"
import { searchWordsOf } from "./searchWords.js"

export interface SearchFields {
  readonly fields: ReadonlyArray<FieldRef>
  readonly wholeWordFields: ReadonlyArray<FieldRef>
}

/** The fields `search` looks at in a resource with this catalog. */
export const searchFieldsOf = (catalog: FieldCatalog): SearchFields => {
  const fields: Array<FieldRef> = []
  const wholeWordFields: Array<FieldRef> = []
  for (const info of catalog.values()) {
    if (info.searchable) fields.push({ name: info.name, type: info.type })
    if (info.wholeWord) wholeWordFields.push({ name: info.name, type: info.type })
  }
  return { fields, wholeWordFields }
}

/**
 * Every word a `search` term may be a prefix of. The evaluator matches against these, and the engine
 * stores them with each document so that PostgreSQL matches exactly the same words without having to
 * split text the way JavaScript's Unicode classes do.
 */
export const searchWordsOfDocument = (data: JsonObject, search: SearchFields): ReadonlyArray<string> => {
  const words = new Set<string>()
  for (const field of search.fields) {
    const value = scalarOf(data, field)
    if (typeof value === "string") for (const word of searchWordsOf(value)) words.add(word)
  }
  for (const field of search.wholeWordFields) {
    const value = scalarOf(data, field)
    if (typeof value === "string") words.add(value.toLowerCase())
  }
  return [...words]
}
