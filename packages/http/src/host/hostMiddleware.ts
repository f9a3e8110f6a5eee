import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { Effect, type Types } from "effect"
import { answerFailure } from "../errors/answerFailure.js"

/**
 * Our error body for what fails outside the API's endpoints (no route matches: HttpRouter's
 * RouteNotFound). Failures inside an endpoint are answered there (ErrorBodies), before HttpApi
 * would answer them in its own format; the 500s among them leave their cause in the RequestInfo
 * for the log line. The request's id, its headers and its log line are the front's
 * (requestFront.ts), which runs before Effect sees the request.
 *
 * A router middleware is typed as handling no error (HttpRouter only lets a middleware handle
 * the errors it declares, and HttpApi's routes declare none); this one answers every failure, so
 * its result is typed as the router expects and nothing is lost.
 */
export const hostMiddleware = HttpRouter.middleware(
  (app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled>) =>
    Effect.catchCause(app, answerFailure) as Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      Types.unhandled,
      HttpServerRequest.HttpServerRequest
    >,
  { global: true }
)
