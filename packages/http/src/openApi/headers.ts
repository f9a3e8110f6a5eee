import { type ErrorHeader, type ErrorRow, rows } from "../errors/errorTable.js"

/**
 * The response headers the host sends besides those an endpoint declares (answerSchemas.ts): the
 * request id on every answer, the rate limit on authenticated ones, and what comes with a refusal. They
 * are the host's and the middleware's (host/requestFront.ts, auth/Authentication.ts,
 * errors/errorResponse.ts), so they are declared here by rule rather than on each endpoint: on a
 * refusal, by the rows of its status in the error table (errors/errorTable.ts).
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
  "RateLimit-Limit": header(
    "Requests allowed in a burst by the limit nearer to refusing (the client address's or the API key's).",
    count,
    required
  ),
  "RateLimit-Remaining": header("Requests left before that limit refuses.", count, required),
  "RateLimit-Reset": header("Seconds until that limit is full again.", count, required)
})

/**
 * Authentication charges the address, then the key, and shows the limit on whatever is answered
 * after that, and on its own 429: so on every answer only an authenticated request gets (a success
 * has no rows). A status shows it where all its rows do, perhaps where some do (a 400, 404 or 413
 * also comes from the HTTP server or the router, before authentication), never where none does.
 */
const rateLimitOn = (at: ReadonlyArray<ErrorRow>): Record<string, Header> =>
  at.length > 0 && at.every((row) => row.rateLimit === "never") ? {} : rateLimit(at.every((row) => row.rateLimit === "always"))

/** The headers that come with an error (errors/errorTable.ts), as the document describes them. */
const ERROR_HEADERS: { readonly [Name in ErrorHeader]: Header | null } = {
  "Retry-After": header("Seconds to wait before retrying.", { type: "integer", minimum: 1 }),
  "WWW-Authenticate": header("The scheme to authenticate with.", { const: "Bearer" }),
  ETag: header('The record\'s current version, `"<version>"`.', { type: "string", pattern: '^"[0-9]+"$' }),
  Location: header("The record this one was merged into, `/v1/<records>/<survivor id>`.", { type: "string" }),
  // Hop-by-hop: it says what becomes of the connection, not what the answer is.
  Connection: null
}

/** The headers that come with the rows' errors, each required where all of them carry it. */
const errorHeadersOn = (at: ReadonlyArray<ErrorRow>): Record<string, Header> =>
  Object.fromEntries(
    Object.entries(ERROR_HEADERS).flatMap(([name, described]) => {
      const carrying = at.filter((row) => row.headers.includes(name as ErrorHeader)).length
      return described === null || carrying === 0 ? [] : [[name, { ...described, required: carrying === at.length }]]
    })
  )

/** What a response of this status adds to the headers it declares. */
export const hostHeaders = (status: string, secured: boolean): Record<string, Header> => {
  const at = rows.flatMap(([, row]) => (String(row.status) === status ? [row] : []))
  return {
    "X-Request-Id": requestId,
    ...(secured ? rateLimitOn(at) : {}),
    ...errorHeadersOn(at)
  }
}

/** Header names as they are written; HttpApi lowercases the ones endpoints declare. */
const SPELLING: Readonly<Record<string, string>> = {
  etag: "ETag",
  location: "Location",
  "idempotent-replayed": "Idempotent-Replayed",
  "if-match": "If-Match",
  "idempotency-key": "Idempotency-Key"
}

export const spelled = (name: string): string => SPELLING[name] ?? name
