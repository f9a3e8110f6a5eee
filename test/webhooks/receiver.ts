import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** One request as the receiver got it: the raw bytes, before any parsing. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly rawBody: Buffer
  /** The body parsed as JSON (null when it is not JSON). */
  readonly json: any
  /** Date.now() when the whole body had arrived. */
  readonly at: number
}

/** What to answer: a status with headers and body, or hold the request open until `release`. */
export type Script =
  | {
      readonly status: number
      readonly headers?: Record<string, string>
      readonly body?: string
      /** Send the status and body, but never end the answer. */
      readonly keepOpen?: boolean
    }
  | "hold"

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  readonly received: ReadonlyArray<Received>
  /** TCP connections accepted, whether or not a request came through them. */
  readonly connections: () => number
  /** Requests whose connection closed before they were answered (the sender aborted them). */
  readonly aborted: ReadonlyArray<Received>
  /** How to answer the next requests; the last entry repeats. Default: 200. */
  script: (...answers: ReadonlyArray<Script | ((request: Received) => Script)>) => void
  /** Answers every held request with this. */
  release: (answer?: Exclude<Script, "hold">) => void
  /** Resolves once `predicate` holds for what was received, or fails with what was seen. */
  waitFor: (predicate: (received: ReadonlyArray<Received>) => boolean, what: string, timeoutMs?: number) => Promise<void>
  close: () => Promise<void>
}

/** A real HTTP server on 127.0.0.1 that records every request and answers as scripted. */
export const startReceiver = async (): Promise<Receiver> => {
  const received: Array<Received> = []
  const aborted: Array<Received> = []
  const held: Array<{ readonly response: ServerResponse }> = []
  let answers: Array<Script | ((request: Received) => Script)> = [{ status: 200 }]
  let connections = 0

  const answer = (response: ServerResponse, script: Exclude<Script, "hold">) => {
    if (response.destroyed) return
    response.writeHead(script.status, { "content-type": "text/plain", ...script.headers })
    if (script.keepOpen === true) response.write(script.body ?? "ok")
    else response.end(script.body ?? "ok")
  }

  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const rawBody = Buffer.concat(chunks)
      let json: unknown = null
      try {
        json = JSON.parse(rawBody.toString("utf8"))
      } catch {
        json = null
      }
      const entry: Received = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        rawBody,
        json,
        at: Date.now()
      }
      received.push(entry)
      const next = answers.length > 1 ? answers.shift()! : answers[0]!
      const script = typeof next === "function" ? next(entry) : next
      response.on("close", () => {
        if (!response.writableFinished) aborted.push(entry)
      })
      if (script === "hold") held.push({ response })
      else answer(response, script)
    })
  })
  server.on("connection", () => {
    connections++
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    aborted,
    connections: () => connections,
    script: (...next) => {
      answers = [...next]
    },
    release: (script = { status: 200 }) => {
      for (const { response } of held.splice(0)) answer(response, script)
    },
    waitFor: async (predicate, what, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs
      while (!predicate(received)) {
        if (Date.now() > deadline) {
          throw new Error(
            `receiver: timed out waiting for ${what}; got ${received.length} request(s): ${received
              .map((r) => `${String(r.headers["x-service-event"])} ${String(r.headers["x-service-delivery"])}`)
              .join(", ")}`
          )
        }
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { response } of held.splice(0)) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after the deadline. */
export const eventually = async <A>(check: () => Promise<A | undefined>, what: string, timeoutMs = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last === undefined ? "" : `: ${String(last)}`}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
