import type { DerivedField, FieldRef, FieldType, Scalar } from "@dealstream/core"

/**
 * How a document field reads in SQL. These expressions are the contract between the query compiler
 * and the indexes of the migrations: the planner uses an expression index only when the query
 * spells the expression exactly as the index does, so the migrations repeat these texts verbatim
 * (the EXPLAIN test catches any drift).
 */

const fieldName = /^[a-z][a-z0-9_]{0,62}$/

/**
 * The one place a field name enters SQL text, as a string literal. Core validates names against
 * the catalog before they reach the AST; this check makes a name that slipped through a defect
 * instead of an injection.
 */
export const fieldKey = (name: string): string => {
  if (!fieldName.test(name)) throw new Error(`storage-pg: refusing field name ${JSON.stringify(name)}`)
  return `'${name}'`
}

/** The JSON type a field's present values have; id_array fields have no scalar value at all. */
export const jsonTypeOf = (type: FieldType): "string" | "number" | "boolean" | null => {
  switch (type) {
    case "text":
    case "id":
    case "enum":
    case "date":
    case "timestamp":
      return "string"
    case "number":
      return "number"
    case "boolean":
      return "boolean"
    case "id_array":
      return null
  }
}

// The same shapes as core's calendar.ts: a value of a date or timestamp field that is not in
// canonical form is absent there, so it must be absent here too.
const datePattern = "'^[0-9]{4}-[0-9]{2}-[0-9]{2}$'"
const timestampPattern = "'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'"

/**
 * The field's value as core's `scalarOf` sees it, NULL when absent (missing, JSON null, or a value
 * of another JSON type). Text compares by code point: `COLLATE "C"` on a UTF8 database.
 */
export const valueSql = (field: FieldRef): string => {
  if (field.derived !== undefined) return derivedSql(field.derived)
  const key = fieldKey(field.name)
  const isString = `jsonb_typeof(data -> ${key}) = 'string'`
  switch (field.type) {
    case "text":
    case "id":
    case "enum":
      return `(CASE WHEN ${isString} THEN data ->> ${key} END) COLLATE "C"`
    case "date":
      return `(CASE WHEN ${isString} AND (data ->> ${key}) COLLATE "C" ~ ${datePattern} THEN data ->> ${key} END) COLLATE "C"`
    case "timestamp":
      return `(CASE WHEN ${isString} AND (data ->> ${key}) COLLATE "C" ~ ${timestampPattern} THEN data ->> ${key} END) COLLATE "C"`
    case "number":
      return `(CASE WHEN jsonb_typeof(data -> ${key}) = 'number' THEN (data -> ${key})::numeric END)`
    case "boolean":
      return `(CASE WHEN jsonb_typeof(data -> ${key}) = 'boolean' THEN (data -> ${key})::boolean END)`
    case "id_array":
      return "NULL"
  }
}

/** A scalar as a typed bind parameter (numbers travel as their JS text, which numeric reads exactly). */
export const scalarParam = (add: (value: unknown) => string, value: Scalar): string => {
  switch (typeof value) {
    case "string":
      return `${add(value)}::text`
    case "number":
      return `${add(String(value))}::numeric`
    case "boolean":
      return `${add(value)}::boolean`
  }
}

export const arrayCast = { string: "text[]", number: "numeric[]", boolean: "boolean[]" } as const

// Stage ids are the engine's own (`stage_` and letters and digits); anything else is a defect, not text to splice.
const stageId = /^[A-Za-z0-9_]{1,100}$/

const number = (key: string) =>
  `(CASE WHEN jsonb_typeof(data -> ${fieldKey(key)}) = 'number' THEN (data -> ${fieldKey(key)})::numeric::float8 END)`

/**
 * A derived field as core's scalarOf computes it (core's ast.ts): a product of doubles, so that both
 * storages order by the same values. The stages' probabilities are literals: the statement is the
 * workspace's own, as its pipelines are.
 */
const derivedSql = (derived: DerivedField): string => {
  const stages = derived.stages.map(([id, probability]) => {
    if (!stageId.test(id) || !Number.isFinite(probability))
      throw new Error(`storage-pg: refusing a derived field's stage ${JSON.stringify(id)}`)
    return `WHEN '${id}' THEN ${String(probability)}::float8`
  })
  const ofStage = stages.length === 0 ? "NULL::float8" : `(CASE data ->> 'stage_id' ${stages.join(" ")} END)`
  return `(${number("value")} * coalesce(${number("probability")}, ${ofStage}))`
}
