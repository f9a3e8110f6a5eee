import { Ids } from "@dealstream/core"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Effect, type Types } from "effect"
import { answerFailure } from "../errors/answerFailure.js"
import { acceptableRequestId, rateLimitHeaders, RequestInfo, type RequestInfoShape } from "../request/RequestInfo.js"
import { requestLine } from "./jsonLogger.js"
import { stdoutLines } from "./lineWriter.js"

/** The path of a request target: origin-form (`/v1/…?…`) sliced, anything else parsed. */
const pathOf = (target: string): string => {
  if (!target.startsWith("/")) return new URL(target, "http://localhost").pathname
  const query = target.indexOf("?")
  return query < 0 ? target : target.slice(0, query)
}

/**
 * What wraps every request, matched or not: its id, the request log line (with `log`), and our
 * error body for what fails outside the API's endpoints (no route matches: HttpRouter's
 * RouteNotFound). Failures inside an endpoint are answered there (ErrorBodies), before HttpApi
 * would answer them in its own format; the 500s among them leave their cause in RequestInfo for
 * the log line.
 *
 * The log line is written here in jsonLogger's format rather than through Effect's logger: the
 * annotations and the logger dispatch cost more per request than the line itself.
 *
 * A router middleware is typed as handling no error (HttpRouter only lets a middleware handle
 * the errors it declares, and HttpApi's routes declare none); this one answers every failure, so
 * its result is typed as the router expects and nothing is lost.
 */
export const hostMiddleware = (log: boolean) =>
  HttpRouter.middleware(
    Ids.useSync(
      (ids) => (app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const started = performance.now()
          const header = request.headers["x-request-id"]
          const info: RequestInfoShape = {
            id: acceptableRequestId(header) ? header : yield* ids.make("req"),
            workspaceId: null,
            internal: null,
            rateLimit: null,
            hosted: true
          }
          const logged = (status: number) => {
            if (!log) return
            stdoutLines().write(
              requestLine(new Date(), {
                request_id: info.id,
                method: request.method,
                // The path only: query strings carry search terms and filters, which may be personal data.
                path: pathOf(request.url),
                status,
                duration_ms: Math.round((performance.now() - started) * 10) / 10,
                workspace_id: info.workspaceId,
                ...(info.internal === null ? {} : { error: info.internal })
              })
            )
          }

          const response = yield* app.pipe(
            Effect.catchCause(answerFailure),
            // Interrupted: the client went away and nobody reads an answer.
            Effect.onInterrupt(() => Effect.sync(() => logged(499))),
            Effect.provideService(RequestInfo, info)
          )
          logged(response.status)
          return HttpServerResponse.setHeaders(response, {
            "x-request-id": info.id,
            ...(info.rateLimit === null ? {} : rateLimitHeaders(info.rateLimit))
          })
        }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>
    ),
    { global: true }
  )
