import type { Api } from "@dealstream/http"
import { Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpApi, HttpApiClient, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import type { Simplify } from "effect/Types"
import type { DealstreamError } from "./DealstreamError.js"
import { type ClientOptions, makeClient } from "./makeClient.js"

type Groups = typeof Api extends HttpApi.HttpApi<infer _Id, infer G> ? G : never

/** One operation as a Promise: the request as the Effect client takes it, the decoded answer. */
type PromiseMethod<Endpoint extends HttpApiEndpoint.ConstraintRequest> = (
  request: Simplify<
    HttpApiEndpoint.ClientRequest<Endpoint["~Params"], Endpoint["~Query"], Endpoint["~Payload"], Endpoint["~Headers"], "decoded-only">
  >
) => Promise<HttpApiClient.SuccessType<Endpoint["~Success"]>>

/**
 * The client for callers without Effect: every operation returns a Promise, which rejects with the
 * DealstreamError the host answered (or the transport's error when no answer came).
 *
 * ```ts
 * const crm = await createClient({ baseUrl: "http://localhost:3000", apiKey })
 * const contact = await crm.contacts.create({ payload: { email: "ada@example.com" }, headers: {} })
 * ```
 */
export type PromiseClient = {
  readonly [Group in Extract<Groups, { readonly topLevel: false }> as HttpApiGroup.Identifier<Group>]: {
    readonly [Endpoint in Extract<
      HttpApiGroup.Endpoints<Group>,
      HttpApiEndpoint.ConstraintRequest
    > as Endpoint["identifier"]]: PromiseMethod<Endpoint>
  }
}

const promised = (value: unknown): unknown => {
  if (typeof value === "function") {
    return (...args: Array<unknown>) =>
      Effect.runPromiseExit((value as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args)).then((exit) => {
        if (Exit.isSuccess(exit)) return exit.value
        const failure = exit.cause.reasons.find((r) => r._tag === "Fail") as { readonly error: unknown } | undefined
        const defect = exit.cause.reasons.find((r) => r._tag === "Die") as { readonly defect: unknown } | undefined
        return Promise.reject(failure?.error ?? defect?.defect ?? new Error(String(exit.cause)))
      })
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, promised(inner)]))
  }
  return value
}

export const createClient = async (options: ClientOptions): Promise<PromiseClient> => {
  const client = await Effect.runPromise(makeClient(options).pipe(Effect.provide(FetchHttpClient.layer)))
  return promised(client) as PromiseClient
}

export type { DealstreamError }
