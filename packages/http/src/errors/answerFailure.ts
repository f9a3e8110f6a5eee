import type { HttpServerResponse } from "effect/http"
import { type Cause, Effect, Option } from "effect"
import { currentRequestInfo } from "../request/RequestInfo.js"
import { errorResponse } from "./errorResponse.js"

/**
 * Answers a failed request with our error body, noting a 500's cause for the request log. A
 * request that was only interrupted (the client went away) stays interrupted: nobody reads an
 * answer.
 */
export const answerFailure = (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.withFiber((fiber) => {
    const info = currentRequestInfo(fiber)
    return Option.match(errorResponse(cause, info.id), {
      // Interruptions only: the cause holds no failure to type.
      onNone: () => Effect.failCause(cause as Cause.Cause<never>),
      onSome: (mapped) => {
        info.internal = mapped.internal
        return Effect.succeed(mapped.response)
      }
    })
  })
