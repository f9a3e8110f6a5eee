import { Ids } from "@dealstream/core"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { type Cause, Effect, Option } from "effect"
import { errorResponse } from "../errors/errorResponse.js"
import { acceptableRequestId, RequestInfo, type RequestInfoShape } from "../request/RequestInfo.js"

/**
 * What wraps every request, matched or not: its id, the mapping of every failure to our error
 * body, and the request log line. It sits inside HttpApi (HttpApiBuilder.middleware), so it sees
 * HttpApi's own decode and routing failures before HttpApi would answer them in its own format.
 */
export const hostMiddleware = Effect.map(Ids, (ids) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = performance.now()
    const header = request.headers["x-request-id"]
    const info: RequestInfoShape = { id: acceptableRequestId(header) ? header : yield* ids.make("req"), workspaceId: null }
    let internal: string | null = null
    const log = (status: number) =>
      Effect.annotateLogs(status >= 500 ? Effect.logError() : Effect.logInfo(), {
        request_id: info.id,
        method: request.method,
        // The path only: query strings carry search terms and filters, which may be personal data.
        path: new URL(request.url, "http://localhost").pathname,
        status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        workspace_id: info.workspaceId,
        ...(internal === null ? {} : { error: internal })
      })

    const response = yield* app.pipe(
      Effect.provideService(RequestInfo, info),
      Effect.catchAllCause((cause) =>
        Option.match(errorResponse(cause, info.id), {
          // Interrupted: the client went away and nobody reads an answer.
          onNone: () => Effect.zipRight(log(499), Effect.failCause(cause as Cause.Cause<never>)),
          onSome: (mapped) => {
            internal = mapped.internal
            return Effect.succeed(mapped.response)
          }
        })
      )
    )
    yield* log(response.status)
    return HttpServerResponse.setHeader(response, "x-request-id", info.id)
  })
)
