import { HttpApiScalar } from "effect/http-api"
import type { ServedApi } from "../Api.js"

/**
 * Scalar's settings for /docs. The page must work offline and behind strict networks and send
 * nothing about the API elsewhere, so it requests nothing from anywhere but the host: Scalar's
 * script is inlined (HttpApiScalar.layer, never layerCdn), its default fonts, which it would load
 * from fonts.scalar.com, are off (the browser's own fonts are used), and its developer tools bar,
 * shown on localhost, is hidden: its Share button uploads the whole document to api.scalar.com.
 * No proxy is set, so "try it" sends its requests to the host itself, with the key entered for
 * the `bearer` scheme.
 */
export const scalarConfig: HttpApiScalar.ScalarConfig & {
  // Scalar's setting, passed through as it is; HttpApiScalar's type does not list it.
  readonly showDeveloperTools: "always" | "localhost" | "never"
} = {
  withDefaultFonts: false,
  showDeveloperTools: "never",
  authentication: { preferredSecurityScheme: "bearer" }
}

/**
 * `GET /docs`: Scalar's API reference over the OpenAPI document the host serves at
 * /v1/openapi.json (both are `OpenApi.fromApi(api)` of the API served, plug-ins included), with no
 * authentication. A route of the router rather than an endpoint of the API, so the host's
 * middleware (request id, log line) wraps it as it wraps every route, and its query parameters are
 * not looked at, as on the probes.
 */
export const DocsLive = (api: ServedApi) => HttpApiScalar.layer(api, { path: "/docs", scalar: scalarConfig })
