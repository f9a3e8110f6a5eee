import { ValidationError } from "@dealstream/core"
import type { HttpServerRequest } from "effect/http"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Effect } from "effect"
import { InvalidJson, PayloadTooLarge, UnsupportedMediaType } from "../errors/HttpErrors.js"

export const MAX_BODY_BYTES = 1024 * 1024

/**
 * No request body of the API nests deeper than three levels. JSON.parse takes a megabyte of `[`
 * (half a million levels) in its stride, but whatever walks the value afterwards recursively (the
 * storable-text check, the idempotency fingerprint) runs out of stack, and a RangeError is a 500.
 */
export const MAX_BODY_DEPTH = 64

/** Whether `value` has objects or arrays nested more than `max` deep; a loop, not recursion. */
export const nestsDeeperThan = (value: unknown, max: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!
    if (typeof current !== "object" || current === null) continue
    if (depth > max) return true
    for (const inner of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof inner === "object" && inner !== null) pending.push([inner, depth + 1])
    }
  }
  return false
}

const isJsonMediaType = (contentType: string): boolean => {
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
  return mediaType === "application/json"
}

type HeadersOf = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: HeadersOf, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" ? value : undefined
}

/** Whether a request has a body, by its headers. */
export const hasBody = (headers: HeadersOf): boolean => {
  const length = header(headers, "content-length")
  return headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

/** What refuses a body before it is read, in the order a client can fix it: media type (415), declared size (413). */
export const bodyRefusal = (headers: HeadersOf): UnsupportedMediaType | PayloadTooLarge | null => {
  const contentType = header(headers, "content-type")
  if (contentType === undefined || !isJsonMediaType(contentType)) {
    return new UnsupportedMediaType({
      message: `Content-Type must be application/json, got ${contentType === undefined ? "none" : JSON.stringify(contentType)}`
    })
  }
  return Number(header(headers, "content-length") ?? "0") > MAX_BODY_BYTES ? tooLarge : null
}

/** The body of a Node request whose headers passed bodyRefusal: size while reading (413), syntax (400), nesting (400). */
export const readJsonFrom = (source: IncomingMessage): Effect.Effect<unknown, InvalidJson | PayloadTooLarge | ValidationError> =>
  Effect.flatMap(readLimited(source, MAX_BODY_BYTES), (text) => {
    if (text.trim() === "") return Effect.succeed(null)
    return Effect.flatMap(
      Effect.try({
        try: (): unknown => JSON.parse(text),
        catch: (error) => new InvalidJson({ message: `malformed JSON: ${error instanceof Error ? error.message : "cannot parse"}` })
      }),
      (body) =>
        nestsDeeperThan(body, MAX_BODY_DEPTH)
          ? Effect.fail(ValidationError.at("", `the body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`))
          : Effect.succeed(body)
    )
  })

/**
 * Reads a JSON request body with the edge's rules, in the order a client can fix them: media type
 * (415), size (413, from Content-Length first so a large upload is refused before it is read, then
 * while reading for chunked bodies), syntax (400 invalid_json), nesting (400 validation_error). An
 * absent body reads as `null` and the engine reports what is missing.
 */
export const readJsonBody = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<unknown, InvalidJson | PayloadTooLarge | UnsupportedMediaType | ValidationError> =>
  Effect.suspend((): Effect.Effect<unknown, InvalidJson | PayloadTooLarge | UnsupportedMediaType | ValidationError> => {
    if (!hasBody(request.headers)) return Effect.succeed(null)
    const refusal = bodyRefusal(request.headers)
    if (refusal !== null) return Effect.fail(refusal)
    continueIfExpected(request)
    return readJsonFrom(NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage)
  })

/**
 * A client that sent `Expect: 100-continue` waits for `100 Continue` before it sends the body.
 * @effect/platform-node 4 listens for Node's `checkContinue`, so Node no longer says it by itself,
 * and the platform says it only when the body is read through the request's own streams; the body
 * is read from the Node stream here (readLimited), so it is said here, once the checks that may
 * refuse the body unread (415, a declared 413) have passed.
 */
const continueIfExpected = (request: HttpServerRequest.HttpServerRequest): void => {
  if (request.headers["expect"]?.trim().toLowerCase() !== "100-continue") return
  const response = NodeHttpServerRequest.toServerResponse(request) as ServerResponse
  if (!response.headersSent) response.writeContinue()
}

/**
 * Reads at most `max` bytes. Past that it fails but keeps discarding the rest of the upload
 * instead of destroying the socket (which the platform's own limit does): a client still
 * sending would otherwise see a connection reset instead of our 413.
 */
const readLimited = (source: IncomingMessage, max: number): Effect.Effect<string, PayloadTooLarge | InvalidJson> =>
  Effect.callback((resume) => {
    const chunks: Array<Buffer> = []
    let bytes = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= max) return void chunks.push(chunk)
      stop()
      source.resume()
      resume(Effect.fail(tooLarge))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
    }
    const onError = () => {
      stop()
      resume(Effect.fail(new InvalidJson({ message: "the request body could not be read" })))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    return Effect.sync(stop)
  })

const tooLarge = new PayloadTooLarge({ message: `request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)` })
