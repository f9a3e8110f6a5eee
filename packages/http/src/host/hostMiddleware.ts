import { Ids } from "@dealstream/core"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Effect, type Types } from "effect"
import { answerFailure } from "../errors/answerFailure.js"
import { acceptableRequestId, RequestInfo, type RequestInfoShape } from "../request/RequestInfo.js"

/**
 * What wraps every request, matched or not: its id, the request log line, and our error body for
 * what fails outside the API's endpoints (no route matches: HttpRouter's RouteNotFound). Failures
 * inside an endpoint are answered there (ErrorBodies), before HttpApi would answer them in its
 * own format; the 500s among them leave their cause in RequestInfo for the log line.
 *
 * A router middleware is typed as handling no error (HttpRouter only lets a middleware handle
 * the errors it declares, and HttpApi's routes declare none); this one answers every failure, so
 * its result is typed as the router expects and nothing is lost.
 */
export const hostMiddleware = HttpRouter.middleware(
  Ids.useSync((ids) => (app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      const header = request.headers["x-request-id"]
      const info: RequestInfoShape = {
        id: acceptableRequestId(header) ? header : yield* ids.make("req"),
        workspaceId: null,
        internal: null
      }
      const log = (status: number) =>
        Effect.annotateLogs(status >= 500 ? Effect.logError() : Effect.logInfo(), {
          request_id: info.id,
          method: request.method,
          // The path only: query strings carry search terms and filters, which may be personal data.
          path: new URL(request.url, "http://localhost").pathname,
          status,
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
          workspace_id: info.workspaceId,
          ...(info.internal === null ? {} : { error: info.internal })
        })

      const response = yield* app.pipe(
        Effect.catchCause(answerFailure),
        // Interrupted: the client went away and nobody reads an answer.
        Effect.onInterrupt(() => log(499)),
        Effect.provideService(RequestInfo, info)
      )
      yield* log(response.status)
      return HttpServerResponse.setHeader(response, "x-request-id", info.id)
    }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>
  ),
  { global: true }
)
