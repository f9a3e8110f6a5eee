import { Result } from "effect"
import { ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"

/**
 * An `expand` parameter: some of `allowed`, comma-separated, in any order, with spaces; absent or
 * blank is none; anything else is 400 at `expand`.
 */
export const parseExpansions = <A extends string>(
  raw: string | null,
  allowed: ReadonlyArray<A>
): Result.Result<ReadonlySet<A>, ValidationError> => {
  const wanted = new Set<A>()
  if (raw === null || raw.trim() === "") return Result.succeed(wanted)
  for (const part of raw.split(",")) {
    const value = part.trim()
    if (!(allowed as ReadonlyArray<string>).includes(value)) {
      return Result.fail(ValidationError.at("expand", `has an unknown value ${JSON.stringify(value)}; use ${allowed.join(", ")}`))
    }
    wanted.add(value as A)
  }
  return Result.succeed(wanted)
}

/** One expansion of a record: its key, the ids key it takes the place of (none), and its records when it was asked for. */
export type Expansion = readonly [key: string, replaces: string | null, records: ReadonlyArray<JsonObject> | undefined]

/**
 * A record with what was expanded: each expansion asked for takes the place of the ids it replaces
 * (`deals` of `deal_ids`); the other keys stay where they are, and the expansions follow in the
 * order given, after every key kept, as every derived key does.
 */
export const withExpansions = (record: JsonObject, expansions: ReadonlyArray<Expansion>): JsonObject => {
  // Nothing asked for (most reads): the record as it is, not a copy of it.
  if (expansions.every(([, , records]) => records === undefined)) return record
  const replaced = new Set(expansions.flatMap(([, replaces, records]) => (replaces === null || records === undefined ? [] : [replaces])))
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(record)) if (!replaced.has(key)) out[key] = value
  for (const [key, , records] of expansions) if (records !== undefined) out[key] = records
  return out
}

/**
 * A record type's `expand`: each key it may name, in the order the answer shows them, with the ids
 * key it takes the place of (null: it adds to the record, as a deal's `companies` beside `company_id`).
 */
export const expansionsOf = <const K extends string>(table: ReadonlyArray<readonly [key: K, replaces: string | null]>) => ({
  keys: table.map(([key]) => key),
  /** The `expand` parameter (parseExpansions). */
  parse: (raw: string | null): Result.Result<ReadonlySet<K>, ValidationError> =>
    parseExpansions(
      raw,
      table.map(([key]) => key)
    ),
  /** The record with what was expanded (withExpansions). */
  apply: (record: JsonObject, expanded: { readonly [P in K]?: ReadonlyArray<JsonObject> }): JsonObject =>
    withExpansions(
      record,
      table.map(([key, replaces]) => [key, replaces, expanded[key]])
    )
})
