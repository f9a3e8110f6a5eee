import { Conflict, NotFound, PreconditionFailed, StorageUnavailable, ValidationError } from "@dealstream/core"
import { HttpServerError } from "effect/http"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { HttpApiPayloadTooLarge } from "effect/http-api/HttpApiError"
import { ByteSize, Cause, Option, type Schema } from "effect"
import { STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { describe, expect, it } from "vitest"
import { answerClientError } from "../host/parserErrors.js"
import { ErrorCode } from "./ErrorBody.js"
import { errorResponse } from "./errorResponse.js"
import { ERRORS, type ErrorTag } from "./errorTable.js"
import {
  Conflicting,
  IdempotencyConflict,
  Invalid,
  InvalidJson,
  Missing,
  PayloadTooLarge,
  RateLimited,
  Stale,
  Unauthorized,
  Unavailable,
  UnsupportedMediaType
} from "./HttpErrors.js"

const answerTo = (cause: Cause.Cause<unknown>) => {
  const { response } = Option.getOrThrow(errorResponse(cause, "req_1"))
  if (response.body._tag !== "Uint8Array") throw new Error(`unexpected body ${response.body._tag}`)
  return { status: response.status, headers: response.headers, code: JSON.parse(new TextDecoder().decode(response.body.body)).error.code }
}

/** Each error the app answers, failing as it fails in a request, with the row it is answered by. */
const failures: ReadonlyArray<readonly [ErrorTag, Cause.Cause<unknown>]> = [
  ["ValidationError", Cause.fail(ValidationError.at("email", "is required"))],
  ["InvalidJson", Cause.fail(new InvalidJson({ message: "malformed JSON" }))],
  ["Unauthorized", Cause.fail(new Unauthorized({ message: "unknown API key" }))],
  ["NotFound", Cause.fail(new NotFound({ resource: "contact", id: "con_1" }))],
  ["Conflict", Cause.fail(new Conflict({ message: "email is taken", details: [] }))],
  ["IdempotencyConflict", Cause.fail(new IdempotencyConflict({ message: "reused" }))],
  ["PreconditionFailed", Cause.fail(new PreconditionFailed({ message: "stale", currentVersion: 3 }))],
  ["PayloadTooLarge", Cause.fail(new PayloadTooLarge({ message: "body too large" }))],
  ["PayloadTooLarge", Cause.fail(new HttpApiPayloadTooLarge({ limit: "maxBytes", size: ByteSize.bytes(2) }))],
  ["UnsupportedMediaType", Cause.fail(new UnsupportedMediaType({ message: "no" }))],
  ["RateLimited", Cause.fail(new RateLimited({ message: "slow down", retryAfterSeconds: 2 }))],
  ["InternalError", Cause.die(new Error("boom"))],
  ["StorageUnavailable", Cause.fail(new StorageUnavailable({ message: "connection refused" }))],
  [
    "RouteNotFound",
    Cause.fail(new HttpServerError.HttpServerError({ reason: new HttpServerError.RouteNotFound({ request: {} as never }) }))
  ]
]

describe("the error table", () => {
  it.each(failures)("answers %s with its row's status, code and headers", (tag, cause) => {
    const row = ERRORS[tag]
    const answer = answerTo(cause)
    expect(answer.status).toBe(row.status)
    expect(answer.code).toBe(row.code)
    for (const name of row.headers) expect(answer.headers[name.toLowerCase()], name).toBeDefined()
  })

  it("gives the headers' values only the error knows", () => {
    expect(answerTo(failures.find(([tag]) => tag === "PreconditionFailed")![1]).headers["etag"]).toBe('"3"')
    expect(answerTo(failures.find(([tag]) => tag === "RateLimited")![1]).headers["retry-after"]).toBe("2")
    expect(answerTo(failures.find(([tag]) => tag === "StorageUnavailable")![1]).headers["retry-after"]).toBe("1")
    expect(answerTo(failures.find(([tag]) => tag === "Unauthorized")![1]).headers["www-authenticate"]).toBe("Bearer")
    expect(answerTo(failures.find(([tag]) => tag === "PayloadTooLarge")![1]).headers["connection"]).toBe("close")
  })

  it("declares each error to HttpApi with its row's status", () => {
    const declared: ReadonlyArray<readonly [ErrorTag, Schema.Top]> = [
      ["ValidationError", Invalid],
      ["InvalidJson", InvalidJson],
      ["Unauthorized", Unauthorized],
      ["NotFound", Missing],
      ["Conflict", Conflicting],
      ["IdempotencyConflict", IdempotencyConflict],
      ["PreconditionFailed", Stale],
      ["PayloadTooLarge", PayloadTooLarge],
      ["UnsupportedMediaType", UnsupportedMediaType],
      ["RateLimited", RateLimited],
      ["StorageUnavailable", Unavailable]
    ]
    for (const [tag, schema] of declared) {
      const api = HttpApi.make("api").add(HttpApiGroup.make("group").add(HttpApiEndpoint.get("endpoint", "/", { error: schema })))
      const statuses = Object.keys(OpenApi.fromApi(api).paths["/"]!.get!.responses)
      expect(
        statuses.filter((status) => !status.startsWith("2")),
        tag
      ).toEqual([String(ERRORS[tag].status)])
    }
  })

  /** What answerClientError writes on a socket for Node's parser error `code`. */
  const refusedOnSocket = (code: string) => {
    let written = ""
    const socket = {
      writable: true,
      end: (text: string) => {
        written = text
      },
      destroy: () => undefined
    } as unknown as Duplex
    answerClientError(() => "req_1")(Object.assign(new Error("parse error"), { code }), socket)
    const [head = "", body = ""] = written.split("\r\n\r\n")
    return { head: head.split("\r\n"), code: JSON.parse(body).error.code }
  }

  it.each([
    ["HPE_INVALID_METHOD", "MalformedRequest"],
    ["ERR_HTTP_REQUEST_TIMEOUT", "RequestTimeout"],
    ["HPE_CHUNK_EXTENSIONS_OVERFLOW", "ChunkExtensionsTooLarge"],
    ["HPE_HEADER_OVERFLOW", "HeadersTooLarge"]
  ] as const)("refuses what Node's parser refused (%s) as the row %s says", (nodeCode, tag) => {
    const row = ERRORS[tag]
    const { code, head } = refusedOnSocket(nodeCode)
    expect(head[0]).toBe(`HTTP/1.1 ${row.status} ${STATUS_CODES[row.status]}`)
    expect(code).toBe(row.code)
    expect(head).toContain("connection: close")
  })

  it("has each code once in ErrorCode, in the table's order", () => {
    expect(ErrorCode.literals).toEqual([
      "merged",
      "validation_error",
      "invalid_json",
      "unauthorized",
      "forbidden",
      "not_found",
      "conflict",
      "idempotency_conflict",
      "precondition_failed",
      "payload_too_large",
      "unsupported_media_type",
      "rate_limited",
      "internal_error",
      "projection_failed",
      "unavailable"
    ])
  })
})
