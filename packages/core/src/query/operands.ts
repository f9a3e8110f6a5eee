import { Result } from "effect"
import { isStorableText } from "../storableText.js"
import type { FieldType, Scalar } from "./ast.js"
import { isCalendarDate, normaliseTimestamp } from "./calendar.js"
import type { FieldInfo } from "./fields.js"

/**
 * Checks a filter operand against the field it is compared with and brings it to the stored
 * form (timestamps to canonical UTC). The Left is the message for the operand's path.
 */
export const scalarOperand = (field: FieldInfo, raw: unknown): Result.Result<Scalar, string> => {
  if (raw === null) return Result.fail("must not be null (use $exists to match absent values)")
  if (typeof raw === "string" && !isStorableText(raw)) return Result.fail(UNSTORABLE)
  switch (field.type) {
    case "number":
      return typeof raw === "number" && Number.isFinite(raw) ? Result.succeed(raw) : Result.fail("must be a number")
    case "boolean":
      return typeof raw === "boolean" ? Result.succeed(raw) : Result.fail("must be true or false")
    case "date":
      return typeof raw === "string" && isCalendarDate(raw) ? Result.succeed(raw) : Result.fail("must be a date written YYYY-MM-DD")
    case "timestamp": {
      const canonical = typeof raw === "string" ? normaliseTimestamp(raw) : null
      return canonical !== null ? Result.succeed(canonical) : Result.fail("must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z")
    }
    case "enum": {
      const options = field.options
      if (typeof raw === "string" && (options === null || options.includes(raw))) return Result.succeed(raw)
      return Result.fail(options === null ? "must be a string" : `must be one of ${options.join(", ")}`)
    }
    case "text":
    case "id":
    case "id_array":
      return typeof raw === "string" ? Result.succeed(raw) : Result.fail("must be a string")
  }
}

/**
 * A filter's JSON may spell U+0000 or a lone surrogate (`"\\u0000"`), which the query string
 * checks never see. No record holds one, and PostgreSQL refuses U+0000 as a bind parameter (a 500).
 */
export const UNSTORABLE = "contains U+0000 or an unpaired surrogate, which no record can hold"

/** Types whose values have a meaningful order for $gt, $gte, $lt and $lte. */
export const orderedTypes: ReadonlyArray<FieldType> = ["number", "date", "timestamp", "text", "id"]

/** Types $contains and $starts_with apply to. */
export const textTypes: ReadonlyArray<FieldType> = ["text", "id", "enum"]
