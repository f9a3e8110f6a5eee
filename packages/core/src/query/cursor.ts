import { Result } from "effect"
import { Base64Url } from "effect/encoding"
import { ValidationError } from "../errors.js"
import { isStorableText } from "../storableText.js"
import type { Position } from "./ast.js"
import { fnv1a64 } from "./fingerprint.js"

/*
 * A cursor is base64url of the JSON `[fingerprint, value, id, check]`, where `check` hashes the
 * first three. The check catches edited or truncated cursors; it is not a signature, and need not
 * be one: a forged position only moves where a page of the caller's own records starts.
 */

const checkOf = (fingerprint: string, position: Position): string => fnv1a64(JSON.stringify([fingerprint, position.value, position.id]))

export const encodeCursor = (fingerprint: string, position: Position): string =>
  Base64Url.encode(JSON.stringify([fingerprint, position.value, position.id, checkOf(fingerprint, position)]))

const malformed = ValidationError.at("cursor", "is not a valid cursor")

const parsePayload = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

const isSortValue = (value: unknown): value is Position["value"] =>
  value === null || typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))

/** The position a cursor carries, if it is intact and was made for the query with `fingerprint`. */
export const decodeCursor = (raw: string, fingerprint: string): Result.Result<Position, ValidationError> => {
  const text = Base64Url.decodeString(raw)
  if (Result.isFailure(text)) return Result.fail(malformed)
  const payload = parsePayload(text.success)
  if (!Array.isArray(payload) || payload.length !== 4) return Result.fail(malformed)
  const [madeFor, value, id, check] = payload as Array<unknown>
  if (typeof madeFor !== "string" || !isSortValue(value) || typeof id !== "string" || typeof check !== "string") {
    return Result.fail(malformed)
  }
  // The check is no signature: anyone can re-encode a position, U+0000 included, which PostgreSQL
  // refuses as a bind parameter (a 500). No record holds such text, so no cursor of ours does.
  if ((typeof value === "string" && !isStorableText(value)) || !isStorableText(id)) return Result.fail(malformed)
  const position: Position = { value, id }
  if (check !== checkOf(madeFor, position)) return Result.fail(malformed)
  if (madeFor !== fingerprint) {
    return Result.fail(ValidationError.at("cursor", "was made for another filter, search or sort"))
  }
  return Result.succeed(position)
}
