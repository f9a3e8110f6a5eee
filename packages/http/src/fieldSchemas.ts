import type { StandardField } from "@dealstream/core"
import { Schema } from "effect"
import { exampleId, Timestamp } from "./documented.js"

/**
 * A record type's schemas read off its field table in core (`field/contactFields.ts`, …, or a
 * plug-in's `fields`): the properties, their order, types, nullability, descriptions and examples,
 * and which a new record must give. The schemas document; the engine's parsers, read off the same
 * table, decide.
 */

/** Documentation only: no field needs a service to decode or encode. */
type FieldSchema = Schema.Codec<unknown, unknown>
type Fields = { readonly [name: string]: FieldSchema | Schema.optionalKey<FieldSchema> }

const LocalDate = Schema.String.annotate({ description: "YYYY-MM-DD", examples: ["2026-12-31"], format: "date" })

/** A field's non-null values, by its type; an id with the prefix of the records it names. */
const valuesOf = (field: StandardField): FieldSchema => {
  switch (field.type) {
    case "text":
      return Schema.String
    case "id":
      return field.idPrefix === null ? Schema.String : exampleId(field.idPrefix)
    case "enum":
      return Schema.Literals(field.options ?? [])
    case "number":
      return Schema.Finite
    case "boolean":
      return Schema.Boolean
    case "date":
      return LocalDate
    case "timestamp":
      return Timestamp
    case "id_array":
      return Schema.Array(Schema.String)
  }
}

const annotated = (schema: FieldSchema, description: string | null, examples: ReadonlyArray<unknown>): FieldSchema =>
  description === null && examples.length === 0
    ? schema
    : schema.annotate({
        ...(description === null ? {} : { description }),
        ...(examples.length === 0 ? {} : { examples })
      })

/** A nullable field's description is on the whole (`anyOf`), its examples on the values. */
const fieldSchema = (field: StandardField): FieldSchema =>
  field.nullable
    ? annotated(Schema.NullOr(annotated(valuesOf(field), null, field.examples)), field.description, [])
    : annotated(valuesOf(field), field.description, field.examples)

const entriesOf = (
  fields: ReadonlyArray<StandardField>,
  optional: (field: StandardField) => boolean
): ReadonlyArray<readonly [string, Fields[string]]> =>
  fields.map((field) => [field.name, optional(field) ? Schema.optionalKey(fieldSchema(field)) : fieldSchema(field)])

/** A field a body may set has a check (core's writableOf); the others the service sets. */
const isWritable = (field: StandardField): boolean => field.check !== null

/** A new record's body: the fields a body may set, the required ones required. */
export const createFields = (fields: ReadonlyArray<StandardField>): Fields =>
  Object.fromEntries(entriesOf(fields.filter(isWritable), (field) => !field.required))

/** What a patch's keys do, as a patch body's description says it. */
export const PATCH_DESCRIPTION = "Only the keys present change; null clears an optional field."

/** A patch's fields: those a body may set, every one optional. */
export const patchFields = (fields: ReadonlyArray<StandardField>): Fields =>
  Object.fromEntries(entriesOf(fields.filter(isWritable), () => true))

/**
 * A record as it is answered: every standard field, present even when null. The computed ones
 * (associations, expansions: their schemas are the endpoint's) come after the fields a body may set,
 * before the service's own trailing ones (the timestamps).
 */
export const answerFields = (fields: ReadonlyArray<StandardField>, computed: Fields = {}): Fields => {
  const lastWritable = fields.reduce((last, field, i) => (isWritable(field) ? i : last), -1)
  const all = entriesOf(fields, () => false)
  return Object.fromEntries([...all.slice(0, lastWritable + 1), ...Object.entries(computed), ...all.slice(lastWritable + 1)])
}
