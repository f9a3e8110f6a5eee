import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { attachedRequestInfo, attachRequestInfo, type RequestInfoShape, requestIdOf } from "../request/RequestInfo.js"
import { requestLine } from "./jsonLogger.js"
import { stdoutLines } from "./lineWriter.js"

/** The path of a request target: origin-form (`/v1/…?…`) sliced, anything else parsed. */
export const pathOf = (target: string): string => {
  if (!target.startsWith("/")) return new URL(target, "http://localhost").pathname
  const query = target.indexOf("?")
  return query < 0 ? target : target.slice(0, query)
}

/**
 * The host's front: plain code Node runs on every request before Effect's handler sees it (a
 * listener put ahead of it). It gives the request its id (the client's X-Request-Id when
 * acceptable), puts the id on the answer, keeps the RequestInfo the Effect side reads
 * (request/RequestInfo.ts), and writes the request log line once the answer is written or the
 * client went away (499, with no answer). Authentication fills in the workspace, answerFailure a
 * 500's cause; both reach the answer or the line through the info.
 *
 * It was an Effect router middleware: a generator, a context copy per provide, an interruption
 * handler and a copy of the response to set two headers cost about 13 µs of the memory host's 75
 * per GET (bench/ANALYSIS.md, issue 32).
 */
export const installRequestFront = (server: Server, options: { readonly log: boolean; readonly newRequestId: () => string }): void => {
  const { log, newRequestId } = options
  const front = (request: IncomingMessage, response: ServerResponse, idAtOnce: boolean) => {
    const started = performance.now()
    const id = requestIdOf(request.headers["x-request-id"], newRequestId)
    const info: RequestInfoShape = {
      id,
      workspaceId: null,
      internal: null,
      screened: null,
      // Node merges these with the headers Effect passes to writeHead (Effect's win on a clash).
      setHeaders: (headers) => {
        if (response.headersSent) return
        for (const name in headers) response.setHeader(name, headers[name]!)
      }
    }
    attachRequestInfo(request, info)
    // A request the front's takers may answer gets its id in their one writeHead (frontRecords.ts),
    // or from handedOn when Effect's handler answers it; the others at once.
    if (idAtOnce) response.setHeader("x-request-id", id)
    if (!log) return
    response.once("close", () => {
      stdoutLines().write(
        requestLine(new Date(), {
          request_id: id,
          method: request.method ?? "GET",
          // The path only: query strings carry search terms and filters, which may be personal data.
          path: pathOf(request.url ?? "/"),
          // Closed before the answer was written: the client went away and nobody read one.
          status: response.writableFinished ? response.statusCode : 499,
          duration_ms: Math.round((performance.now() - started) * 10) / 10,
          workspace_id: info.workspaceId,
          ...(info.internal === null ? {} : { error: info.internal })
        })
      )
    })
  }
  server.prependListener("request", (request, response) => front(request, response, false))
  // With a listener for it, Node emits checkContinue instead of request for `Expect: 100-continue`;
  // no taker sees those (divertRequests.ts).
  server.prependListener("checkContinue", (request, response) => front(request, response, true))
}

/** Gives a request the front left to its takers its id, as it goes to Effect's handler instead. */
export const handedOn = (request: IncomingMessage, response: ServerResponse): void => {
  const info = attachedRequestInfo(request)
  if (info !== undefined && !response.headersSent) response.setHeader("x-request-id", info.id)
}
