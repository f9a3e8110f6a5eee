import { connect } from "node:net"

/**
 * HTTP/1.1 over a bare socket, one request per connection. fetch and node:http refuse to send what
 * a hostile client sends (control characters in headers, raw bytes in the request target, a body
 * that disagrees with its Content-Length), so the fuzz writes the bytes itself.
 */

export interface RawAnswer {
  readonly status: number
  /** Lowercased names; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
  readonly text: string
}

/** A request as bytes: `Connection: close` is added, so the host ends the answer by closing. */
export interface RawRequest {
  readonly method: string
  /** The request-target, written as is (percent-encode it unless raw bytes are the point). */
  readonly target: string | Buffer
  /** A null value writes the name alone as the whole line. */
  readonly headers: ReadonlyArray<readonly [string, string | Buffer | null]>
  readonly body?: Buffer | undefined
  /** Content-Length of `body` when absent and there is a body; `null`: none sent. */
  readonly contentLength?: string | null | undefined
  /** The request line's protocol, `HTTP/1.1` when absent. */
  readonly version?: string | undefined
}

const latin1 = (value: string | Buffer) => (typeof value === "string" ? Buffer.from(value, "latin1") : value)

export const encodeRequest = (request: RawRequest): Buffer => {
  const version = request.version ?? "HTTP/1.1"
  const lines: Array<Buffer> = [
    Buffer.concat([latin1(request.method), latin1(" "), latin1(request.target), latin1(version === "" ? "\r\n" : ` ${version}\r\n`)])
  ]
  const headers: Array<readonly [string, string | Buffer | null]> = [["Host", "127.0.0.1"], ...request.headers]
  const length =
    request.contentLength === undefined ? (request.body === undefined ? null : String(request.body.length)) : request.contentLength
  if (length !== null) headers.push(["Content-Length", length])
  headers.push(["Connection", "close"])
  for (const [name, value] of headers) {
    lines.push(Buffer.concat([latin1(name), ...(value === null ? [] : [latin1(": "), latin1(value)]), latin1("\r\n")]))
  }
  lines.push(latin1("\r\n"))
  if (request.body !== undefined) lines.push(request.body)
  return Buffer.concat(lines)
}

const decodeChunked = (raw: Buffer): Buffer => {
  const parts: Array<Buffer> = []
  let at = 0
  for (;;) {
    const end = raw.indexOf("\r\n", at)
    if (end < 0) throw new Error("truncated chunked body")
    const size = parseInt(raw.subarray(at, end).toString("latin1"), 16)
    if (!Number.isFinite(size)) throw new Error("bad chunk size")
    if (size === 0) return Buffer.concat(parts)
    parts.push(raw.subarray(end + 2, end + 2 + size))
    at = end + 2 + size + 2
  }
}

export const parseAnswer = (whole: Buffer): RawAnswer => {
  // Interim answers (100 Continue to an Expect header) come before the real one.
  let raw = whole
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 16).toString("latin1")) && raw.indexOf("\r\n\r\n") >= 0) {
    raw = raw.subarray(raw.indexOf("\r\n\r\n") + 4)
  }
  const headEnd = raw.indexOf("\r\n\r\n")
  if (headEnd < 0) throw new Error(`no complete answer: ${JSON.stringify(raw.toString("latin1").slice(0, 300))}`)
  const [statusLine, ...headerLines] = raw.subarray(0, headEnd).toString("latin1").split("\r\n")
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")
  if (status === null) throw new Error(`not an HTTP answer: ${JSON.stringify(statusLine)}`)
  const headers: Record<string, string> = {}
  for (const line of headerLines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rest = raw.subarray(headEnd + 4)
  const body =
    headers["transfer-encoding"]?.toLowerCase() === "chunked"
      ? decodeChunked(rest)
      : headers["content-length"] === undefined
        ? rest
        : rest.subarray(0, Number(headers["content-length"]))
  return { status: Number(status[1]), headers, body, text: body.toString("utf8") }
}

/**
 * Sends the bytes and reads until the host closes (the request asks it to). The deadline only turns a hang into a failure
 * that names the request; no assertion depends on how long an answer takes.
 */
export const sendRaw = (url: string, bytes: Buffer, deadlineMs = 30_000): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    const chunks: Array<Buffer> = []
    let settled = false
    const finish = (error?: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const raw = Buffer.concat(chunks)
      // The host may answer (413) and close before the whole upload is written: an EPIPE or reset
      // after a complete answer is the answer.
      if (raw.indexOf("\r\n\r\n") >= 0) {
        try {
          return resolve(parseAnswer(raw))
        } catch (parseError) {
          return reject(parseError)
        }
      }
      reject(error ?? new Error("the host closed the connection without an answer"))
    }
    const timer = setTimeout(() => finish(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("end", () => finish())
    socket.on("close", () => finish())
    socket.on("error", (error) => finish(error))
    // Not end(): Node's server takes a client that half-closes for one that went away, and drops
    // the request instead of answering it.
    socket.on("connect", () => socket.write(bytes))
  })
