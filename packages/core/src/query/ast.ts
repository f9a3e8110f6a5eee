/**
 * The query AST: what `filter`, `search`, `sort` and `cursor` become once core has parsed and
 * validated them. storage-memory evaluates it with `evaluate.ts`; storage-pg compiles it to SQL.
 * Both must agree on every case, including nulls, so the semantics are written down here.
 */

import type { FieldType } from "../field/table.js"
import type { JsonObject } from "../json.js"

// A field's type is written with the field tables (field/table.ts); the query language compares by it.
export type { FieldType }

export interface FieldRef {
  /** The document key (standard field or custom field key). */
  readonly name: string
  readonly type: FieldType
  /** A field no document stores, computed from its fields when it is read (a deal's weighted_value). */
  readonly derived?: DerivedField
}

/**
 * A deal's weighted value as a sort key: `value × (probability ?? the probability of its stage_id
 * among stages)`, absent unless both are known. A product of IEEE 754 doubles, which every storage
 * computes alike (PostgreSQL in float8), so pages agree to the last bit; what the deal shows is this
 * product rounded to its currency's minor unit.
 */
export interface DerivedField {
  readonly _tag: "Weighted"
  readonly stages: ReadonlyArray<readonly [stageId: string, probability: number]>
}

export type Scalar = string | number | boolean

/**
 * Null semantics (two-valued logic, like MongoDB, not SQL's three-valued logic):
 * - a missing key and `null` are the same: the field is absent;
 * - Compare eq/gt/gte/lt/lte and In, Contains, StartsWith, HasElement are false on an absent field;
 * - Compare ne is true on an absent field;
 * - Not negates exactly: Not(x) is true wherever x is false.
 */
export type Expr =
  | { readonly _tag: "True" }
  | { readonly _tag: "And"; readonly exprs: ReadonlyArray<Expr> }
  | { readonly _tag: "Or"; readonly exprs: ReadonlyArray<Expr> }
  | { readonly _tag: "Not"; readonly expr: Expr }
  | {
      readonly _tag: "Compare"
      readonly field: FieldRef
      readonly op: "eq" | "ne" | "gt" | "gte" | "lt" | "lte"
      readonly value: Scalar
    }
  | { readonly _tag: "In"; readonly field: FieldRef; readonly values: ReadonlyArray<Scalar> }
  | { readonly _tag: "Exists"; readonly field: FieldRef }
  /** Case-insensitive substring of a text value. */
  | { readonly _tag: "Contains"; readonly field: FieldRef; readonly value: string }
  /** Case-insensitive prefix of a text value. */
  | { readonly _tag: "StartsWith"; readonly field: FieldRef; readonly value: string }
  /** An `id_array` field holds this element. */
  | { readonly _tag: "HasElement"; readonly field: FieldRef; readonly value: string }
  /**
   * Every term (already lowercased) is a prefix of some word of one of `fields`. Words are split on
   * anything that is not a letter or digit; values of `wholeWordFields` also count as one whole word.
   */
  | {
      readonly _tag: "Search"
      readonly fields: ReadonlyArray<FieldRef>
      readonly wholeWordFields: ReadonlyArray<FieldRef>
      readonly terms: ReadonlyArray<string>
    }

/** Order by one field, then by id in the same direction. Absent values sort after all others
 * ascending and before all others descending (PostgreSQL's default NULLS LAST / NULLS FIRST). */
export interface SortSpec {
  readonly field: FieldRef
  readonly direction: "asc" | "desc"
}

/** The sort key of the last row of the previous page. */
export interface Position {
  readonly value: Scalar | null
  readonly id: string
}

export interface DocumentQuery {
  readonly where: Expr
  readonly scope: "live" | "deleted"
  readonly sort: SortSpec
  /** Rows strictly after this position in sort order. */
  readonly after: Position | null
  /** At most this many rows are returned. */
  readonly limit: number
}

/** What a query reads of a stored document: storage's StoredDocument is one. */
export interface QueriedRow {
  readonly id: string
  /** Set while the record is soft-deleted. */
  readonly deletedAt: string | null
  readonly data: JsonObject
}
