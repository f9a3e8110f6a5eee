import { type IfMatch, ValidationError } from "@dealstream/core"
import type { HttpServerRequest } from "effect/http"
import { Effect } from "effect"

const VERSION = /^(?:W\/)?"?(\d{1,15})"?$/

/**
 * `If-Match` as the engine wants it: absent or `*` → null (unconditional), `"7"` → 7. Only one
 * version may be named: our ETags are versions, so a list could never match more than one.
 */
export const readIfMatch = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<IfMatch, ValidationError> => {
  const header = request.headers["if-match"]?.trim()
  if (header === undefined || header === "*") return Effect.succeed(null)
  const match = VERSION.exec(header)
  return match === null
    ? Effect.fail(ValidationError.at("If-Match", "must be an ETag from a previous response (\"<version>\") or *"))
    : Effect.succeed(Number(match[1]))
}
