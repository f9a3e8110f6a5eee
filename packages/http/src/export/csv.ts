import type { Json, JsonObject } from "@dealstream/core"
import type { Schema } from "effect"

/**
 * CSV as API.md's export writes it (RFC 4180): a header row of the record's standard fields, in its
 * schema's order, then its custom fields' keys sorted; arrays of ids joined by `;`; null empty; any
 * other object as its JSON. A field holding a comma, a quote or a line break is quoted, quotes
 * doubled. Lines end with CRLF, as RFC 4180 and spreadsheets expect.
 */

/** A record schema's standard fields as CSV columns: every property but the records `expand` puts in (arrays of objects). */
export const standardColumns = (record: Schema.Top): ReadonlyArray<string> => {
  const ast = record.ast as unknown as {
    readonly propertySignatures?: ReadonlyArray<{
      readonly name: PropertyKey
      readonly type: { readonly _tag: string; readonly rest?: ReadonlyArray<{ readonly _tag: string }> }
    }>
  }
  return (ast.propertySignatures ?? [])
    .filter((property) => !(property.type._tag === "Arrays" && property.type.rest?.[0]?._tag === "Objects"))
    .map((property) => String(property.name))
}

const field = (value: Json | undefined): string => {
  const text =
    value === null || value === undefined
      ? ""
      : Array.isArray(value)
        ? value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join(";")
        : typeof value === "object"
          ? JSON.stringify(value)
          : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export const csvLine = (values: ReadonlyArray<Json | undefined>): string => `${values.map(field).join(",")}\r\n`

export const csvRow = (columns: ReadonlyArray<string>, record: JsonObject): string => csvLine(columns.map((column) => record[column]))
