/**
 * The response headers the host sends besides those an endpoint declares (answers.ts): the request
 * id on every answer, the rate limit on authenticated ones, and what comes with a refusal. They
 * are the host's and the middleware's (host/hostMiddleware.ts, auth/Authentication.ts,
 * errors/errorResponse.ts), so they are declared here by rule rather than on each endpoint.
 */

interface Header {
  readonly description?: string
  readonly required: boolean
  readonly schema: Record<string, unknown>
}

const header = (description: string, schema: Record<string, unknown>, required = true): Header => ({ description, required, schema })

const requestId = header(
  "The request's id: the client's X-Request-Id when it sent one of 1 to 200 printable ASCII characters, else one the host made. Error bodies carry it as request_id, and the host's log line of the request too.",
  { type: "string", minLength: 1, maxLength: 200 }
)

const count = { type: "integer", minimum: 0 }

/** The limit nearer to refusing this client: its address's (checked first) or its key's. */
const rateLimit = (required: boolean): Record<string, Header> => ({
  "RateLimit-Limit": header("Requests allowed in a burst by the limit nearer to refusing (the client address's or the API key's).", count, required),
  "RateLimit-Remaining": header("Requests left before that limit refuses.", count, required),
  "RateLimit-Reset": header("Seconds until that limit is full again.", count, required)
})

const retryAfter = header("Seconds to wait before retrying.", { type: "integer", minimum: 1 })

/**
 * Authentication charges the address, then the key, and shows the limit on whatever is answered
 * after that, and on its own 429: so on every answer only an authenticated request gets. Not on a
 * 401 (the key is unknown). Perhaps on a 503 (not when the key lookup itself failed) and a 500;
 * perhaps on a 400, 404 or 413, which come before authentication too: the HTTP server's to a
 * request that is not valid HTTP/1.1 (host/parserErrors.ts), the router's to a path it cannot
 * match (one that does not percent-decode, or a path parameter over 100 characters).
 */
const rateLimitOn = (status: string): Record<string, Header> =>
  status === "401" ? {} : rateLimit(!["400", "404", "413", "500", "503"].includes(status))

/** What a response of this status adds to the headers it declares. */
export const hostHeaders = (status: string, secured: boolean): Record<string, Header> => ({
  "X-Request-Id": requestId,
  ...(secured ? rateLimitOn(status) : {}),
  ...(status === "429" || status === "503" ? { "Retry-After": retryAfter } : {}),
  ...(status === "401" ? { "WWW-Authenticate": header("The scheme to authenticate with.", { const: "Bearer" }) } : {}),
  ...(status === "412" ? { ETag: header("The record's current version, `\"<version>\"`.", { type: "string", pattern: "^\"[0-9]+\"$" }) } : {})
})

/** Header names as they are written; HttpApi lowercases the ones endpoints declare. */
const SPELLING: Readonly<Record<string, string>> = {
  etag: "ETag",
  location: "Location",
  "idempotent-replayed": "Idempotent-Replayed",
  "if-match": "If-Match",
  "idempotency-key": "Idempotency-Key"
}

export const spelled = (name: string): string => SPELLING[name] ?? name
