import {
  isPublicAddress,
  TransportError,
  ValidationError,
  WebhookTransport,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookTransportService
} from "@dealstream/core"
import { promises as dns } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import { Clock, Duration, Effect, Layer, type Scope } from "effect"
import { ipLiteral, NON_PUBLIC_TARGET, publicOnlyLookup } from "./publicAddresses.js"
import { parseRetryAfter } from "./retryAfter.js"

/**
 * Webhook deliveries over node:http and node:https. Plain Node rather than Effect's HttpClient
 * because each safety property is one visible option here: the `lookup` that refuses
 * non-public addresses at connect time, no redirect handling at all (a 3xx is an answer like any
 * other), a byte cap on the answer, and `destroy()` of the socket when the fiber is interrupted
 * (webhook DELETE) or the timeout fires — the receiver sees the connection closed.
 */

/** Enough for a receiver's error page; the rest is not read (the socket is closed instead). */
const ANSWER_BYTES_READ = 16 * 1024
const RESOLVE_TIMEOUT = Duration.seconds(5)

interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

// Keep-alive: a busy receiver gets many deliveries, and a TLS handshake per delivery costs more
// than the POST. A pooled socket was checked by the lookup when it was opened.
const makeAgents = (guarded: boolean): Agents => {
  const options = { keepAlive: true, ...(guarded ? { lookup: publicOnlyLookup } : {}) }
  return { http: new http.Agent(options), https: new https.Agent(options) }
}

const tlsCode = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_)/

/** What went wrong, for the attempt's `error` (shown to the workspace): never a stack, never our internals. */
const describeFailure = (error: NodeJS.ErrnoException): string => {
  const code = error.code ?? ""
  if (code === NON_PUBLIC_TARGET) return "refused: the target resolves to a non-public address"
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA") return "the target host does not resolve"
  if (code === "ECONNREFUSED") return "connection refused"
  if (code === "ECONNRESET" || error.message === "socket hang up") return "connection closed before an answer"
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "target unreachable"
  if (tlsCode.test(code)) return `TLS error: ${error.message}`
  return error.message === "" ? `request failed (${code})` : error.message
}

interface RawAnswer {
  readonly status: number
  readonly retryAfter: string | undefined
}

const send = (agents: Agents, url: URL, request: WebhookRequest) =>
  Effect.callback<RawAnswer, TransportError>((resume) => {
    const body = Buffer.from(request.body, "utf8")
    const secure = url.protocol === "https:"
    let done = false
    let answer: RawAnswer | null = null
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (outcome: Effect.Effect<RawAnswer, TransportError>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(outcome)
    }
    const fail = (message: string) => finish(Effect.fail(new TransportError({ message })))

    let outgoing: http.ClientRequest
    try {
      outgoing = (secure ? https : http).request(url, {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { ...request.headers, "content-length": String(body.length) }
      })
    } catch (error) {
      // Node refuses a malformed header before anything is sent.
      fail(describeFailure(error as NodeJS.ErrnoException))
      return
    }
    // One deadline for the whole exchange. An answer whose status arrived in time counts, even if
    // its body is still trickling in.
    timer = setTimeout(() => {
      if (answer !== null) finish(Effect.succeed(answer))
      else fail(`timed out after ${request.timeoutMillis} ms`)
      outgoing.destroy()
    }, request.timeoutMillis)

    outgoing.on("response", (incoming) => {
      const retryAfter = incoming.headers["retry-after"]
      answer = { status: incoming.statusCode ?? 0, retryAfter }
      const got = answer
      let read = 0
      incoming.on("data", (chunk: Buffer) => {
        read += chunk.length
        if (read > ANSWER_BYTES_READ) {
          finish(Effect.succeed(got))
          outgoing.destroy()
        }
      })
      incoming.on("end", () => finish(Effect.succeed(got)))
      incoming.on("error", () => finish(Effect.succeed(got)))
      incoming.on("aborted", () => finish(Effect.succeed(got)))
    })
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      if (answer !== null) finish(Effect.succeed(answer))
      else fail(describeFailure(error))
    })
    outgoing.end(body)

    // Interrupted (the webhook was deleted, or the host is stopping): close the connection now.
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      outgoing.destroy()
    })
  })

const refusedTarget = (message: string) => Effect.fail(new TransportError({ message }))

const makePost =
  (guarded: Agents, open: Agents) =>
  (request: WebhookRequest): Effect.Effect<WebhookResponse, TransportError> =>
    Effect.suspend(() => {
      if (!URL.canParse(request.url)) return refusedTarget("the webhook URL is not a valid URL")
      const url = new URL(request.url)
      if (url.protocol !== "https:" && url.protocol !== "http:") return refusedTarget("the webhook URL is not http or https")
      if (!request.allowInsecure) {
        if (url.protocol !== "https:") return refusedTarget("refused: only https targets are allowed")
        // Node connects to an IP literal without calling `lookup`, so it is judged here.
        const literal = ipLiteral(url.hostname)
        if (literal !== null && !isPublicAddress(literal)) return refusedTarget("refused: the target is not a public address")
      }
      return send(request.allowInsecure ? open : guarded, url, request).pipe(
        Effect.zipWith(
          Clock.currentTimeMillis,
          (raw, now): WebhookResponse => ({
            status: raw.status,
            retryAfterSeconds: parseRetryAfter(raw.retryAfter, now)
          })
        )
      )
    })

const PRIVATE = "resolves to a private address"

/** Registration-time check: the host must resolve, and only to public addresses. */
const checkTarget = (target: string, allowInsecure: boolean): Effect.Effect<void, ValidationError> =>
  Effect.gen(function* () {
    if (allowInsecure) return
    if (!URL.canParse(target)) return yield* ValidationError.at("url", "must be an absolute URL")
    const hostname = new URL(target).hostname
    const literal = ipLiteral(hostname)
    if (literal !== null) {
      if (!isPublicAddress(literal)) return yield* ValidationError.at("url", PRIVATE)
      return
    }
    const addresses = yield* Effect.tryPromise(() => dns.lookup(hostname, { all: true, verbatim: true })).pipe(
      Effect.timeout(RESOLVE_TIMEOUT),
      Effect.orElseSucceed(() => [])
    )
    if (addresses.length === 0) return yield* ValidationError.at("url", "does not resolve")
    if (addresses.some(({ address }) => !isPublicAddress(address))) return yield* ValidationError.at("url", PRIVATE)
  })

/** The transport, with its connection pools closed when the scope closes. */
export const make: Effect.Effect<WebhookTransportService, never, Scope.Scope> = Effect.gen(function* () {
  const guarded = makeAgents(true)
  const open = makeAgents(false)
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      for (const agent of [guarded.http, guarded.https, open.http, open.https]) agent.destroy()
    })
  )
  return WebhookTransport.of({ post: makePost(guarded, open), checkTarget })
})

export const layer: Layer.Layer<WebhookTransport> = Layer.effect(WebhookTransport, make)
