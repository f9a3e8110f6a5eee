import { Api } from "@dealstream/http"
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { HttpApi, HttpApiClient, HttpApiSchema } from "effect/http-api"
import { Context, Effect, Layer } from "effect"
import { DealstreamError, type ErrorDetail } from "./DealstreamError.js"

export interface ClientOptions {
  /** Where the host listens: `http://localhost:3000`. */
  readonly baseUrl: string
  /** The API key; it decides the workspace. */
  readonly apiKey: string
}

/**
 * The client's operations, by resource group and operation, as the API declares them (`contacts.create`,
 * `deals.moveStage`, `pipelines.update`, …): each takes its path parameters, query, headers and payload
 * as typed values and answers the decoded record, or fails with the DealstreamError the host answered.
 */
export interface DealstreamClient extends HttpApiClient.ForApi<typeof Api, DealstreamError> {}

type Body = {
  readonly error?: { readonly code?: unknown; readonly message?: unknown; readonly details?: unknown; readonly request_id?: unknown }
}

/** A non-2xx answer read as the error body the host always sends. */
const errorOf = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.flatMap(
    Effect.orElseSucceed(response.json, () => ({})),
    (json) => {
      const error = (json as Body).error ?? {}
      const retryAfter = Number(response.headers["retry-after"])
      return Effect.fail(
        new DealstreamError({
          status: response.status,
          code: typeof error.code === "string" ? error.code : `http_${response.status}`,
          message: typeof error.message === "string" ? error.message : `the host answered ${response.status}`,
          details: Array.isArray(error.details) ? (error.details as ReadonlyArray<ErrorDetail>) : [],
          requestId: typeof error.request_id === "string" ? error.request_id : null,
          retryAfter: Number.isFinite(retryAfter) ? retryAfter : null
        })
      )
    }
  )

/**
 * For every operation (`group.endpoint`), the response headers its success carries beside the body
 * (ETag, Location, Idempotent-Replayed), or null when its success is the body alone: read off the
 * definition once.
 */
const answerHeaders: ReadonlyMap<string, ReadonlyArray<string> | null> = (() => {
  const headers = new Map<string, ReadonlyArray<string> | null>()
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, successes }) => {
      const withHeaders = [...successes.values()].flat().find(HttpApiSchema.isWithHeaders)
      // The headers' schema is a struct: its property names are the headers' (lowercase) names.
      const properties =
        (withHeaders?.headers.ast as { readonly propertySignatures?: ReadonlyArray<{ readonly name: PropertyKey }> } | undefined)
          ?.propertySignatures ?? []
      headers.set(`${group.identifier}.${endpoint.identifier}`, withHeaders === undefined ? null : properties.map((p) => String(p.name)))
    }
  })
  return headers
})()

/** A success answer as the client returns it: the JSON body, with the declared headers when there are any. */
const answerOf = (response: HttpClientResponse.HttpClientResponse, headers: ReadonlyArray<string> | null | undefined) =>
  Effect.map(response.status === 204 ? Effect.succeed(undefined) : response.json, (body) =>
    headers === null || headers === undefined
      ? body
      : HttpApiSchema.withHeaders({
          body,
          headers: Object.fromEntries(
            headers.flatMap((name) => (response.headers[name] === undefined ? [] : [[name, response.headers[name]]]))
          )
        })
  )

/**
 * The typed client of the API the host serves, derived from the same HttpApi definition (Api from
 * @dealstream/http) by HttpApiClient, over the HttpClient in context. Requests are built and encoded
 * from the definition (paths, parameters, headers, bodies), and every request carries the API key.
 * Answers are typed by the definition too, and read as the JSON the host sends: its record schemas
 * document custom fields as a rest beside the standard ones, which Effect's decoding would apply to
 * every key (see documented.ts), so success bodies are not decoded by them. An answer that is not a
 * success fails with a DealstreamError, read from the error body the host always sends.
 */
export const makeClient = (options: ClientOptions): Effect.Effect<DealstreamClient, never, HttpClient.HttpClient> =>
  Effect.flatMap(HttpClient.HttpClient, (http) =>
    Effect.map(
      HttpApiClient.makeWith(Api, {
        baseUrl: options.baseUrl,
        httpClient: http.pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(options.apiKey)),
          HttpClient.transformResponse(
            Effect.flatMap((response) => (response.status >= 400 ? errorOf(response) : Effect.succeed(response)))
          )
        )
      }),
      (client) =>
        Object.fromEntries(
          Object.entries(client).map(([group, operations]) => [
            group,
            Object.fromEntries(
              Object.entries(operations as unknown as Record<string, Operation>).map(([name, operation]) => [
                name,
                (request: Record<string, unknown> = {}) =>
                  Effect.flatMap(operation({ ...request, responseMode: "response-only" }), (response) =>
                    answerOf(response, answerHeaders.get(`${group}.${name}`))
                  )
              ])
            )
          ])
        ) as unknown as DealstreamClient
    )
  )

type Operation = (request: Record<string, unknown>) => Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>

/** The client as a service, for Effect programs: `yield* Dealstream` once `Dealstream.layer(options)` is provided. */
export class Dealstream extends Context.Service<Dealstream, DealstreamClient>()("@dealstream/client/Dealstream") {
  /** Over the platform's fetch. */
  static layer(options: ClientOptions): Layer.Layer<Dealstream> {
    return Layer.effect(Dealstream, makeClient(options)).pipe(Layer.provide(FetchHttpClient.layer))
  }
}
