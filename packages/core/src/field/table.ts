import type { Json } from "../json.js"
import { type FieldCheck, trimmedText } from "./checks.js"
import type { CustomFieldObject } from "./custom.js"

/** How a field's values compare. text/id/enum compare by Unicode code point (UTF-8 byte order). */
export type FieldType = "text" | "id" | "enum" | "number" | "boolean" | "date" | "timestamp" | "id_array"

/**
 * One standard field of a record type, written once: what it holds, what a request body may send,
 * what the query language may do with it, and how the API documents it. Input checks
 * (`recordBody.ts`), the query catalog (`query/fields.ts`) and the HTTP schemas are read off it.
 */
export interface StandardField {
  readonly name: string
  readonly type: FieldType
  /** The record may hold null, and a body may send null to clear the field. */
  readonly nullable: boolean
  /** What a body's value must be, limits included (null is handled apart); null: the service sets it (read-only). */
  readonly check: FieldCheck | null
  /** A new record's body must give it. */
  readonly required: boolean
  /**
   * A new record's value when the body leaves the field out. Null on a field that is not nullable
   * means the decider fills it (a deal's first stage); a body may then send null for "leave it to you".
   */
  readonly absent: Json
  readonly filterable: boolean
  readonly sortable: boolean
  /** Words of the value are matched by `search`. */
  readonly searchable: boolean
  /** The whole value also counts as one word for `search` (email). */
  readonly wholeWord: boolean
  /** Allowed values of an `enum` field. */
  readonly options: ReadonlyArray<string> | null
  readonly description: string | null
  readonly examples: ReadonlyArray<Json>
  /** Of an `id` field: the prefix of the ids it holds (`con`), for the documentation's example. */
  readonly idPrefix: string | null
}

/** A row of a field table: the name and type, and what differs from the defaults below. */
export type FieldRow = Pick<StandardField, "name" | "type"> & Partial<StandardField>

/** The defaults: not nullable, read-only, optional, absent as null, filterable, nothing else. */
const standardField = (row: FieldRow): StandardField => ({
  nullable: false,
  check: null,
  required: false,
  absent: null,
  filterable: true,
  sortable: false,
  searchable: false,
  wholeWord: false,
  options: null,
  description: null,
  examples: [],
  idPrefix: null,
  ...row
})

/** A record type's standard fields, one row each, in the order its documents list them. */
export const fieldTable = (rows: ReadonlyArray<FieldRow>): ReadonlyArray<StandardField> => rows.map(standardField)

/**
 * A record type's standard fields: its `id` (ids are `<idPrefix>_…`), its own `rows`, then the
 * record's own times, which every event moves (isRecordTime).
 */
export const recordFieldTable = (idPrefix: string, rows: ReadonlyArray<FieldRow>): ReadonlyArray<StandardField> =>
  fieldTable([
    { name: "id", type: "id", idPrefix },
    ...rows,
    { name: "created_at", type: "timestamp", sortable: true },
    { name: "updated_at", type: "timestamp", sortable: true }
  ])

/** Every field of one record type. */
export interface RecordFields {
  readonly object: CustomFieldObject
  /** In the order the record's documents and answers list them. */
  readonly standard: ReadonlyArray<StandardField>
  /**
   * Keys the service computes when it answers (associations, expansions): never stored, never
   * sent; a body naming one is told it is read-only, and no custom field may take its name.
   */
  readonly computed: ReadonlyArray<string>
}

/** A field a request body may set: one with a check. */
export type WritableField = StandardField & { readonly check: FieldCheck }

/** The fields a body may set, in table order. */
export const writableOf = (record: RecordFields): ReadonlyArray<WritableField> =>
  record.standard.filter((field): field is WritableField => field.check !== null)

/**
 * Every standard and computed key: no custom field may take one, and a body naming one it may not
 * set is told it is read-only.
 */
export const reservedKeysOf = (record: RecordFields): ReadonlyArray<string> => [
  ...record.standard.map((field) => field.name),
  ...record.computed
]

/**
 * The record's own times, which every event moves and which close its stored keys; other
 * timestamps (a task's due_at, its done_at) are standard fields like any other.
 */
export const isRecordTime = (name: string): boolean => name === "created_at" || name === "updated_at"

/** The standard text limit of contacts and deals. */
export const STANDARD_TEXT_MAX = 1000

/** The required, searched and sorted `name` a company and a deal are known by; `row` adds its words. */
export const nameField = (row: Pick<StandardField, "description" | "examples">): FieldRow => ({
  name: "name",
  type: "text",
  check: trimmedText(1, STANDARD_TEXT_MAX),
  required: true,
  sortable: true,
  searchable: true,
  ...row
})
