import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import type { ErrorBody, ErrorCode } from "../errors/ErrorBody.js"
import { ERRORS, type ErrorTag } from "../errors/errorTable.js"
import { requestIdOf } from "../request/RequestInfo.js"

/*
 * Some requests never reach the app, so errorResponse.ts never sees them: those Node's HTTP parser
 * refuses (control characters or raw non-ASCII bytes in the request line or a header, a broken
 * Content-Length or chunk, a request head over 16 KiB, a request not complete in time) and those
 * with an Expect header other than 100-continue. Node answers them itself with an empty body; here
 * they get our error body like every other non-2xx.
 */

interface Refusal {
  readonly status: number
  readonly reason: string
  readonly code: ErrorCode
  readonly message: string
  readonly details: ErrorBody["error"]["details"]
}

/** The refusal of the error table's row `tag` (errors/errorTable.ts). */
const refusal = (tag: ErrorTag, message: string, details: Refusal["details"] = []): Refusal => {
  const { code, status } = ERRORS[tag]
  return { status, reason: STATUS_CODES[status]!, code, message, details }
}

const refusalFor = (code: string | undefined): Refusal => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return refusal("HeadersTooLarge", "the request line and headers are larger than 16 KiB")
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return refusal("ChunkExtensionsTooLarge", "the chunk extensions are too large")
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return refusal("RequestTimeout", "the request did not arrive completely in time")
    default:
      return refusal("MalformedRequest", "the request is not valid HTTP/1.1")
  }
}

const bodyOf = (refusal: Refusal, requestId: string): string =>
  JSON.stringify({
    error: { code: refusal.code, message: refusal.message, details: refusal.details, request_id: requestId }
  } satisfies ErrorBody)

/** Answers what Node's parser refused, on the socket, then closes it: the parser cannot go on. */
export const answerClientError = (newRequestId: () => string) => (error: Error & { code?: string }, socket: Duplex) => {
  // Like Node's own handler: answer only when nothing of another answer is on the wire yet.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const refusal = refusalFor(error.code)
  const requestId = newRequestId()
  const body = bodyOf(refusal, requestId)
  const head = [
    `HTTP/1.1 ${refusal.status} ${refusal.reason}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    "connection: close"
  ].join("\r\n")
  socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy())
}

/** `Expect` other than 100-continue: 417 (RFC 9110 §10.1.1) with our body instead of Node's empty one. */
export const answerUnmetExpectation = (newRequestId: () => string) => (request: IncomingMessage, response: ServerResponse) => {
  const requestId = requestIdOf(request.headers["x-request-id"], newRequestId)
  const refused = refusal("ExpectationFailed", "Expect supports only 100-continue", [
    { path: "Expect", message: "supports only 100-continue" }
  ])
  const body = bodyOf(refused, requestId)
  response.shouldKeepAlive = false
  response.writeHead(refused.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId
  })
  response.end(body)
}

export const answerParserErrors = (server: Server, newRequestId: () => string): void => {
  server.on("clientError", answerClientError(newRequestId))
  server.on("checkExpectation", answerUnmetExpectation(newRequestId))
}
