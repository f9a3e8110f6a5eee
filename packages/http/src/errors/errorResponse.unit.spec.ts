import { NotFound, ValidationError } from "@dealstream/core"
import { HttpServerError } from "effect/http"
import { HttpApiSchemaError } from "effect/http-api/HttpApiError"
import { Cause, Exit, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { errorResponse } from "./errorResponse.js"
import { RateLimited } from "./HttpErrors.js"

const bodyOf = (cause: Cause.Cause<unknown>) => {
  const mapped = Option.getOrThrow(errorResponse(cause, "req_1"))
  const body = mapped.response.body
  if (body._tag !== "Uint8Array") throw new Error(`unexpected body ${body._tag}`)
  return {
    status: mapped.response.status,
    headers: mapped.response.headers,
    json: JSON.parse(new TextDecoder().decode(body.body)),
    internal: mapped.internal
  }
}

describe("errorResponse", () => {
  it("maps a defect to a bare 500 and keeps the details for the log only", () => {
    const secret = new Error("password=hunter2 at /srv/app/engine.js:42")
    const { internal, json, status } = bodyOf(Cause.die(secret))
    expect(status).toBe(500)
    expect(json).toEqual({ error: { code: "internal_error", message: "internal error", details: [], request_id: "req_1" } })
    expect(internal).toContain("hunter2")
  })

  it("maps an unknown failure (not a defect) to 500 as well", () => {
    expect(bodyOf(Cause.fail({ _tag: "SomethingNew", message: "internal detail" })).json.error.code).toBe("internal_error")
    expect(bodyOf(Cause.fail("a string")).status).toBe(500)
  })

  it("keeps domain details and paths", () => {
    const { json, status } = bodyOf(Cause.fail(ValidationError.at("filter.$or[1].value.$gt", "must be a number")))
    expect(status).toBe(400)
    expect(json.error).toMatchObject({
      code: "validation_error",
      details: [{ path: "filter.$or[1].value.$gt", message: "must be a number" }]
    })
    expect(bodyOf(Cause.fail(new NotFound({ resource: "contact", id: "con_1" }))).json.error.message).toBe("contact con_1 not found")
  })

  /** HttpApi's own decode failure of a request part, as it fails the route with it. */
  const schemaError = (kind: HttpApiSchemaError["kind"]) => {
    const items = Schema.Struct({ items: Schema.Array(Schema.Struct({ name: Schema.String })) })
    const exit = Schema.decodeUnknownExit(items)({ items: [{ name: "a" }, { name: "b" }, { name: 7 }] })
    if (Exit.isSuccess(exit)) throw new Error("expected a decode failure")
    return new HttpApiSchemaError({ kind, cause: Cause.squash(exit.cause) as Schema.SchemaError })
  }

  it("turns HttpApi's decode error into validation_error with dotted paths", () => {
    const { json, status } = bodyOf(Cause.fail(schemaError("Query")))
    expect(status).toBe(400)
    expect(json.error.details).toEqual([{ path: "items[2].name", message: expect.stringMatching(/^Expected string/) }])
    expect(json.error.message).toBe(`items[2].name ${json.error.details[0].message}`)
  })

  it("answers our own answer failing to encode as a 500, with the cause for the log", () => {
    const { internal, json, status } = bodyOf(Cause.fail(schemaError("Body")))
    expect(status).toBe(500)
    expect(json.error.code).toBe("internal_error")
    expect(internal).toContain("HttpApiSchemaError")
  })

  it("answers a request no route matches with 404 not_found", () => {
    const missing = new HttpServerError.HttpServerError({
      reason: new HttpServerError.RouteNotFound({ request: {} as never })
    })
    const { json, status } = bodyOf(Cause.fail(missing))
    expect(status).toBe(404)
    expect(json.error).toMatchObject({ code: "not_found", message: "no such route", details: [] })
  })

  it("sends Retry-After with 429", () => {
    const { headers, status } = bodyOf(Cause.fail(new RateLimited({ message: "slow down", retryAfterSeconds: 3 })))
    expect(status).toBe(429)
    expect(headers["retry-after"]).toBe("3")
  })

  it("gives nothing to answer for an interrupted request", () => {
    expect(Option.isNone(errorResponse(Cause.interrupt(), "req_1"))).toBe(true)
  })
})
