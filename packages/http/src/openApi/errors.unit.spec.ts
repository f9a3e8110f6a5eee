import { describe, expect, it } from "vitest"
import { DESCRIPTIONS, errorSchemas, internalErrorResponse } from "./errors.js"
import { hostHeaders } from "./headers.js"

// What the document says of each error status, derived from the error table (errors/errorTable.ts):
// the texts the document had when they were written out by hand.

describe("the document's errors", () => {
  it("describes each status by its rows: one code with its meaning, or the first's naming the others", () => {
    expect(DESCRIPTIONS).toEqual({
      "308": "merged: the record was merged into another; Location and details name the survivor",
      "400": "validation_error (a body, query, path or header value is invalid) or invalid_json",
      "401": "unauthorized: missing Authorization header, another scheme than Bearer, or an unknown API key",
      "403": "forbidden: the API key lacks the scope the route needs; details name it",
      "404": "not_found: unknown id, soft-deleted record, or a record of another workspace",
      "409": "conflict (e.g. the email is taken; details name the existing id) or idempotency_conflict",
      "412": "precondition_failed: If-Match does not name the current version",
      "413": "payload_too_large: the body is over 1 MiB",
      "415": "unsupported_media_type: the body is not application/json",
      "429": "rate_limited: retry after Retry-After seconds",
      "500": "internal_error (the host failed unexpectedly; its log has the cause under the request id) or projection_failed",
      "503": "unavailable: the database cannot be reached; retry after Retry-After seconds"
    })
    expect(Object.keys(internalErrorResponse())).toEqual(["500"])
  })

  it("shows the declared errors under their tags, in the error body with their codes", () => {
    const { renamed, schemas } = errorSchemas({ Contact: {}, NotFoundEncoded: {}, RateLimited: {} })
    expect(Object.keys(schemas)).toEqual(["Contact", "InternalError", "ProjectionFailed", "NotFound", "RateLimited"])
    expect(renamed.get("#/components/schemas/NotFoundEncoded")).toBe("#/components/schemas/NotFound")
    const code = (name: string) => (schemas[name] as any).properties.error.properties.code
    expect([code("InternalError"), code("NotFound"), code("RateLimited")]).toEqual([
      { type: "string", const: "internal_error" },
      { type: "string", const: "not_found" },
      { type: "string", const: "rate_limited" }
    ])
  })

  const required = (status: string, secured = true) =>
    Object.fromEntries(Object.entries(hostHeaders(status, secured)).map(([name, header]) => [name, header.required]))

  it("adds the headers that come with each status's errors", () => {
    expect(required("401")).toEqual({ "X-Request-Id": true, "WWW-Authenticate": true })
    expect(required("412")).toMatchObject({ ETag: true })
    expect(required("429")).toMatchObject({ "Retry-After": true })
    expect(required("503")).toMatchObject({ "Retry-After": true })
    expect(required("503", false)).toEqual({ "X-Request-Id": true, "Retry-After": true })
    // Connection: close comes with a 413, but says what becomes of the connection only.
    expect(Object.keys(hostHeaders("413", true))).not.toContain("Connection")
  })

  it("shows the rate limit where every row of the status does, perhaps where some do, never where none does", () => {
    const limit = (status: string) => required(status)["RateLimit-Limit"]
    expect(["200", "201", "409", "412", "415", "429"].map(limit)).toEqual([true, true, true, true, true, true])
    expect(["400", "404", "413", "500", "503"].map(limit)).toEqual([false, false, false, false, false])
    expect(limit("401")).toBeUndefined()
  })
})
