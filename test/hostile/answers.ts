import { expect } from "vitest"
import { ErrorCode } from "../../packages/http/src/errors/ErrorBody.js"
import type { RawAnswer } from "./rawHttp.js"

/** The codes API.md pairs with each status; other 4xx statuses may carry any code of the list. */
const CODES_BY_STATUS: Readonly<Record<number, ReadonlyArray<string>>> = {
  400: ["validation_error", "invalid_json"],
  401: ["unauthorized"],
  404: ["not_found"],
  409: ["conflict", "idempotency_conflict"],
  412: ["precondition_failed"],
  413: ["payload_too_large"],
  415: ["unsupported_media_type"],
  429: ["rate_limited"]
}

const describe = (what: string, answer: RawAnswer) =>
  `${what}\n→ ${answer.status} ${JSON.stringify(answer.headers)}\n${answer.text.slice(0, 600)}`

/**
 * The fuzz's judgement of one answer: never 5xx, and every 4xx in API.md's error shape with a
 * code that fits its status and the request id of its X-Request-Id header. A HEAD answer has no
 * body to judge.
 */
export const expectAcceptable = (what: string, method: string, answer: RawAnswer) => {
  expect(answer.status, describe(what, answer)).toBeLessThan(500)
  expect(answer.status, describe(what, answer)).toBeGreaterThanOrEqual(200)
  if (answer.status < 400 || method === "HEAD") return
  expect(answer.headers["content-type"] ?? "", describe(what, answer)).toMatch(/^application\/json/)
  let body: any
  try {
    body = JSON.parse(answer.text)
  } catch {
    throw new Error(`an error body that is not JSON: ${describe(what, answer)}`)
  }
  const error = body?.error
  const allowed = CODES_BY_STATUS[answer.status] ?? ErrorCode.literals
  expect(Object.keys(body ?? {}), describe(what, answer)).toEqual(["error"])
  expect(allowed, describe(what, answer)).toContain(error?.code)
  expect(typeof error.message === "string" && error.message.length > 0, describe(what, answer)).toBe(true)
  expect(Array.isArray(error.details), describe(what, answer)).toBe(true)
  for (const detail of error.details) {
    expect(typeof detail?.path === "string" && typeof detail?.message === "string", describe(what, answer)).toBe(true)
  }
  expect(typeof error.request_id === "string" && error.request_id.length > 0, describe(what, answer)).toBe(true)
  expect(error.request_id, describe(what, answer)).toBe(answer.headers["x-request-id"])
}
