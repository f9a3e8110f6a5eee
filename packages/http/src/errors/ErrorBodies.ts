import { ProjectionFailed } from "@dealstream/core"
import { HttpApiMiddleware } from "effect/http-api"
import { Effect, Layer } from "effect"
import { answerFailure } from "./answerFailure.js"

/**
 * Every failure of an endpoint, answered with our error body: authentication's, HttpApi's own
 * decoding of path, query and headers, the handler's, and defects. HttpApi 4 answers a failure
 * inside the route itself, encoding a declared error with its schema (`{"_tag": …}`) and others as
 * an empty 400 or 500, so a router middleware around it never sees them; this middleware is the
 * outermost of every endpoint (added to the whole API after its groups), so nothing fails past it.
 * It declares ProjectionFailed, which any write may fail with (an embedder's inline projection), so
 * that every handler may: like a defect, it is no operation's own.
 */
export class ErrorBodies extends HttpApiMiddleware.Service<ErrorBodies>()("@dealstream/http/ErrorBodies", {
  error: ProjectionFailed
}) {}

export const ErrorBodiesLive = Layer.succeed(ErrorBodies, (httpEffect) => Effect.catchCause(httpEffect, answerFailure))
