import { expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import type { Json, JsonObject } from "../json.js"
import { evaluate } from "./evaluate.js"
import { parseFilter } from "./parseFilter.js"
import { testCatalog } from "../testing/testCatalog.js"

/*
 * `evaluate(parseFilter(f))` against a naive reading of the filter JSON itself. Documents and
 * operands come from small pools so that equalities, ties and absent fields all happen often.
 */

type Kind = "text" | "enum" | "number" | "boolean" | "date" | "timestamp"

interface FieldPools {
  readonly kind: Kind
  /** Values documents hold: valid ones, then one of a type the field no longer has. */
  readonly stored: ReadonlyArray<Json>
  readonly stale: Json
  /** Valid operands (timestamps in assorted RFC 3339 spellings). */
  readonly operands: ReadonlyArray<Json>
  readonly fragments: ReadonlyArray<string>
}

const fields: Record<string, FieldPools> = {
  name: {
    kind: "text",
    stored: ["Ada Lovelace", "ada", "Bob", "Émile", "zoë", "😀", "\uFF21", ""],
    stale: 3,
    operands: ["ada", "Ada Lovelace", "Bob", "zoë", "\uFF21", "😀", "B", ""],
    fragments: ["a", "AD", "ob", "Ë", "lov", ""]
  },
  email: {
    kind: "text",
    stored: ["ada@x.io", "Bob.Smith@Acme.com", "zoe@acme.com"],
    stale: true,
    operands: ["ada@x.io", "ADA@X.IO", "zoe@acme.com"],
    fragments: ["acme", "@", "BOB"]
  },
  owner: { kind: "text", stored: ["u1", "u2", "U1"], stale: 7, operands: ["u1", "u2", "u3"], fragments: ["u", "U1"] },
  score: { kind: "number", stored: [-1, 0, 1.5, 3, 10], stale: "3", operands: [-1, 0, 1.5, 2, 3, 10], fragments: [] },
  vip: { kind: "boolean", stored: [true, false], stale: "true", operands: [true, false], fragments: [] },
  tier: {
    kind: "enum",
    stored: ["gold", "silver", "bronze", "platinum"],
    stale: 1,
    operands: ["gold", "silver", "bronze"],
    fragments: ["L", "o", "gold"]
  },
  day: {
    kind: "date",
    stored: ["2025-12-31", "2026-01-01", "2026-02-28"],
    stale: "soon",
    operands: ["2025-12-31", "2026-01-01", "2026-01-15", "2026-02-28"],
    fragments: []
  },
  at: {
    kind: "timestamp",
    stored: ["2026-01-01T00:00:00.000Z", "2026-01-01T12:00:00.000Z", "2026-03-01T08:30:00.500Z"],
    stale: "2026-01-01T00:00:00Z",
    operands: [
      "2026-01-01T00:00:00.000Z",
      "2026-01-01T01:00:00+01:00",
      "2026-01-01T12:00:00Z",
      "2026-03-01T09:30:00.5+01:00",
      "2026-02-01T00:00:00Z"
    ],
    fragments: []
  }
}

const document: fc.Arbitrary<JsonObject> = fc.record(
  Object.fromEntries(
    Object.entries(fields).map(([name, pools]) => [
      name,
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...pools.stored) },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constant(pools.stale) }
      )
    ])
  ),
  { requiredKeys: [] }
) as fc.Arbitrary<JsonObject>

const opsOf = (kind: Kind): ReadonlyArray<string> => {
  const ordering = ["$gt", "$gte", "$lt", "$lte"]
  const common = ["$eq", "$ne", "$in", "$nin", "$exists"]
  switch (kind) {
    case "text":
      return [...common, ...ordering, "$contains", "$starts_with"]
    case "enum":
      return [...common, "$contains", "$starts_with"]
    case "boolean":
      return common
    default:
      return [...common, ...ordering]
  }
}

const operandFor = (pools: FieldPools, op: string): fc.Arbitrary<Json> => {
  const value = fc.constantFrom(...pools.operands)
  switch (op) {
    case "$in":
    case "$nin":
      return fc.array(value, { minLength: 1, maxLength: 3 })
    case "$exists":
      return fc.boolean()
    case "$contains":
    case "$starts_with":
      return fc.constantFrom(...pools.fragments)
    case "$eq":
    case "$ne":
      return fc.oneof({ weight: 5, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) })
    default:
      return value
  }
}

const fieldClause: fc.Arbitrary<[string, Json]> = fc.constantFrom(...Object.keys(fields)).chain((name) => {
  const pools = fields[name]!
  const equality = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...pools.operands) }, { weight: 1, arbitrary: fc.constant(null) })
  const operators = fc
    .uniqueArray(fc.constantFrom(...opsOf(pools.kind)), { minLength: 1, maxLength: 2 })
    .chain((ops) => fc.tuple(...ops.map((op) => operandFor(pools, op).map((operand) => [op, operand] as const))))
    .map((entries): Json => Object.fromEntries(entries))
  return fc.tuple(fc.constant(name), fc.oneof(equality, operators))
})

const { filter } = fc.letrec<{ filter: JsonObject; clause: [string, Json] }>((tie) => ({
  filter: fc.array(tie("clause"), { maxLength: 3 }).map((entries) => Object.fromEntries(entries)),
  clause: fc.oneof(
    { maxDepth: 3, depthIdentifier: "filter" },
    { weight: 4, arbitrary: fieldClause },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("$and", "$or"), fc.array(tie("filter"), { minLength: 1, maxLength: 3 })) },
    { weight: 1, arbitrary: fc.tuple(fc.constant("$not"), tie("filter")) }
  )
}))

// ---- the reference: reads the filter JSON directly -------------------------------------------

const utf8 = new TextEncoder()
const order = (a: Json, b: Json): number => {
  if (typeof a === "number" && typeof b === "number") return Math.sign(a - b)
  const x = utf8.encode(String(a))
  const y = utf8.encode(String(b))
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0)
  return x.length - y.length
}

const present = (kind: Kind, value: Json | undefined): boolean => {
  switch (kind) {
    case "number":
      return typeof value === "number"
    case "boolean":
      return typeof value === "boolean"
    case "date":
      return typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)
    case "timestamp":
      return typeof value === "string" && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value
    default:
      return typeof value === "string"
  }
}

const reference = (raw: JsonObject, doc: JsonObject): boolean =>
  Object.entries(raw).every(([key, condition]) => {
    if (key === "$and") return (condition as Array<JsonObject>).every((f) => reference(f, doc))
    if (key === "$or") return (condition as Array<JsonObject>).some((f) => reference(f, doc))
    if (key === "$not") return !reference(condition as JsonObject, doc)
    const kind = fields[key]!.kind
    const stored = doc[key]
    const has = present(kind, stored)
    const operand = (x: Json): Json => (kind === "timestamp" ? new Date(x as string).toISOString() : x)
    const equals = (x: Json) => has && stored === operand(x)
    const lower = () => (stored as string).toLowerCase()
    const holds = (op: string, x: Json): boolean => {
      switch (op) {
        case "$eq":
          return x === null ? !has : equals(x)
        case "$ne":
          return x === null ? has : !equals(x)
        case "$gt":
          return has && order(stored!, operand(x)) > 0
        case "$gte":
          return has && order(stored!, operand(x)) >= 0
        case "$lt":
          return has && order(stored!, operand(x)) < 0
        case "$lte":
          return has && order(stored!, operand(x)) <= 0
        case "$in":
          return (x as Array<Json>).some(equals)
        case "$nin":
          return !(x as Array<Json>).some(equals)
        case "$contains":
          return has && lower().includes((x as string).toLowerCase())
        case "$starts_with":
          return has && lower().startsWith((x as string).toLowerCase())
        case "$exists":
          return has === x
      }
      throw new Error(`test generated an unknown operator ${op}`)
    }
    if (typeof condition === "object" && condition !== null && !Array.isArray(condition)) {
      return Object.entries(condition).every(([op, x]) => holds(op, x))
    }
    return holds("$eq", condition)
  })

it("evaluate agrees with a naive reading of the filter JSON", () => {
  let cases = 0
  let matches = 0
  fc.assert(
    fc.property(filter, fc.array(document, { minLength: 1, maxLength: 12 }), (raw, docs) => {
      const parsed = parseFilter(JSON.stringify(raw), testCatalog)
      if (Result.isFailure(parsed)) throw new Error(`rejected ${JSON.stringify(raw)}: ${parsed.failure.message}`)
      for (const doc of docs) {
        const expected = reference(raw, doc)
        expect(evaluate(parsed.success, doc), JSON.stringify({ raw, doc })).toBe(expected)
        cases += 1
        if (expected) matches += 1
      }
    }),
    { numRuns: 400 }
  )
  // Neither side of the comparison may be rare, or agreement would say little.
  expect(matches / cases).toBeGreaterThan(0.2)
  expect(matches / cases).toBeLessThan(0.8)
})
