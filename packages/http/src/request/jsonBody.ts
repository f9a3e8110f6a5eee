import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { InvalidJson, PayloadTooLarge, UnsupportedMediaType } from "../errors/HttpErrors.js"

export const MAX_BODY_BYTES = 1024 * 1024

/** The request body as sent and as parsed: the raw text feeds the idempotency fingerprint. */
export interface JsonBody {
  readonly text: string
  readonly value: unknown
}

const isJsonMediaType = (contentType: string): boolean => {
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase()
  return mediaType === "application/json"
}

const hasBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const length = request.headers["content-length"]
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
}

/**
 * Reads a JSON request body with the edge's rules, in the order a client can fix them: media type
 * (415), size (413, from Content-Length first so a large upload is refused before it is read, then
 * while reading for chunked bodies), syntax (400 invalid_json). An absent body reads as `null` and
 * the engine reports what is missing.
 */
export const readJsonBody = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<JsonBody, InvalidJson | PayloadTooLarge | UnsupportedMediaType> =>
  Effect.gen(function*() {
    if (!hasBody(request)) return { text: "", value: null }
    const contentType = request.headers["content-type"]
    if (contentType === undefined || !isJsonMediaType(contentType)) {
      return yield* new UnsupportedMediaType({
        message: `Content-Type must be application/json, got ${contentType === undefined ? "none" : JSON.stringify(contentType)}`
      })
    }
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > MAX_BODY_BYTES) return yield* tooLarge
    // request.text is cached per request and reads the size limit of the fiber that runs it first.
    const text = yield* request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES)),
      Effect.mapError((error): PayloadTooLarge | InvalidJson =>
        error.cause instanceof Error && error.cause.message === "maxBytes exceeded"
          ? tooLarge
          : new InvalidJson({ message: "the request body could not be read" })
      )
    )
    if (text.trim() === "") return { text, value: null }
    return yield* Effect.try({
      try: () => ({ text, value: JSON.parse(text) as unknown }),
      catch: (error) => new InvalidJson({ message: `malformed JSON: ${error instanceof Error ? error.message : "cannot parse"}` })
    })
  })

const tooLarge = new PayloadTooLarge({ message: `request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)` })
