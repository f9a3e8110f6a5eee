/**
 * `@dealstream/client`: the dealstream HTTP API as typed operations, derived from the HttpApi
 * definition the host serves (so a client and the host it talks to cannot disagree on a path, a
 * parameter or a record's shape). In Effect: `Dealstream.layer({ baseUrl, apiKey })` or `makeClient`;
 * with Promises: `createClient({ baseUrl, apiKey })`. A non-2xx answer fails with a DealstreamError.
 */
export { DealstreamError, type ErrorDetail } from "./DealstreamError.js"
export { type ClientOptions, Dealstream, type DealstreamClient, makeClient } from "./makeClient.js"
export { createClient, type PromiseClient } from "./promise.js"
