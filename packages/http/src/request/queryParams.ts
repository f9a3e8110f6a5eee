import { type ListParams, ValidationError } from "@dealstream/core"
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

/**
 * Every query parameter as the client sent it. List endpoints hand them all to the engine, which
 * rejects unknown ones, so a typo never silently widens a result. A parameter given twice is
 * rejected here because ListParams has room for one value.
 */
export const readQuery = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<ListParams, ValidationError> =>
  Effect.suspend(() => {
    const search = new URL(request.url, "http://localhost").searchParams
    const seen = new Set<string>()
    for (const key of search.keys()) {
      if (seen.has(key)) return Effect.fail(ValidationError.at(key, "must be given at most once"))
      seen.add(key)
    }
    // fromEntries defines own properties, so even `__proto__` reaches the engine as a parameter.
    return Effect.succeed(Object.fromEntries(search))
  })

/** For endpoints whose engine call takes named values: anything else is a client mistake. */
export const onlyParams = (params: ListParams, allowed: ReadonlyArray<string>): Effect.Effect<ListParams, ValidationError> => {
  const unknown = Object.keys(params).filter((key) => !allowed.includes(key))
  return unknown.length === 0
    ? Effect.succeed(params)
    : Effect.fail(ValidationError.of(unknown.map((key) => ({ path: key, message: "is not a known parameter" }))))
}
