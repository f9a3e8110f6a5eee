import { type ListParams, ValidationError } from "@dealstream/core"
import type { HttpServerRequest } from "effect/http"
import { Effect, Result } from "effect"

/**
 * The query parameters of a request target as the client sent them. List endpoints pass `all` to
 * the engine, which rejects unknown ones; other endpoints name what they take, and anything else is
 * 400 too, so a typo never silently changes (or fails to change) a result. A parameter given twice
 * is rejected because ListParams has room for one value.
 */
export const queryParamsOf = (url: string, allowed: ReadonlyArray<string> | "all"): Result.Result<ListParams, ValidationError> => {
  // Most requests carry no query string: no URL to parse for them.
  if (!url.includes("?")) return Result.succeed({})
  const search = new URL(url, "http://localhost").searchParams
  const seen = new Set<string>()
  for (const key of search.keys()) {
    if (seen.has(key)) return Result.fail(ValidationError.at(key, "must be given at most once"))
    seen.add(key)
  }
  const unknown = allowed === "all" ? [] : [...seen].filter((key) => !allowed.includes(key))
  if (unknown.length > 0) {
    return Result.fail(ValidationError.of(unknown.map((key) => ({ path: key, message: "is not a known parameter" }))))
  }
  // fromEntries defines own properties, so even `__proto__` reaches the engine as a parameter.
  return Result.succeed(Object.fromEntries(search))
}

/** The request's query parameters (queryParamsOf), as its handler reads them. */
export const readQuery = (
  request: HttpServerRequest.HttpServerRequest,
  allowed: ReadonlyArray<string> | "all"
): Effect.Effect<ListParams, ValidationError> => Effect.suspend(() => Effect.fromResult(queryParamsOf(request.url, allowed)))
