/**
 * The CLI's side of a running host: requests with its API key, over keep-alive (Node's fetch).
 * A 429 or a 503 is waited out and sent again (its Retry-After, at most 10 times): an import is
 * long, and a host that sheds load for a moment must not end it.
 */

/** An import or export that cannot go on; the message is one line for the operator. */
export class ImportFailed extends Error {}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

export interface HostClient {
  readonly url: string
  readonly request: (method: string, path: string, body?: unknown, idempotencyKey?: string) => Promise<Answer>
  /** A request whose answer must have one of `expected` statuses (200 alone by default); its body. */
  readonly json: (method: string, path: string, body?: unknown, expected?: ReadonlyArray<number>) => Promise<any>
  /** A GET whose body is read as a stream. */
  readonly stream: (path: string, accept: string) => Promise<Response>
}

const RETRIES = 10

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, Math.min(30, Math.max(0.05, seconds)) * 1000))

export const hostClient = (url: string, key: string): HostClient => {
  const base = url.replace(/\/+$/, "")
  const send = async (method: string, path: string, init: { body?: string; headers?: Record<string, string> }): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      let response: Response
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...init.headers },
          ...(init.body === undefined ? {} : { body: init.body })
        })
      } catch (error) {
        throw new ImportFailed(`cannot reach the host at ${base}: ${(error as { cause?: { code?: string } }).cause?.code ?? String(error)}`)
      }
      if ((response.status !== 429 && response.status !== 503) || attempt === RETRIES) return response
      await response.arrayBuffer()
      await pause(Number(response.headers.get("retry-after") ?? "1"))
    }
  }
  const request: HostClient["request"] = async (method, path, body, idempotencyKey) => {
    const response = await send(method, path, {
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
      }
    })
    const text = await response.text()
    let parsed: unknown = null
    try {
      parsed = text === "" ? null : JSON.parse(text)
    } catch {
      parsed = text
    }
    if (response.status === 401) throw new ImportFailed("the host refused the API key (401): give one with --key or DEALSTREAM_API_KEY")
    return { status: response.status, headers: response.headers, body: parsed }
  }
  return {
    url: base,
    request,
    json: async (method, path, body, expected = [200]) => {
      const answer = await request(method, path, body)
      if (!expected.includes(answer.status)) {
        throw new ImportFailed(`${method} ${path} answered ${answer.status}: ${answer.body?.error?.message ?? JSON.stringify(answer.body)}`)
      }
      return answer.body
    },
    stream: async (path, accept) => {
      const response = await send("GET", path, { headers: { accept } })
      if (response.status === 401) throw new ImportFailed("the host refused the API key (401): give one with --key or DEALSTREAM_API_KEY")
      if (response.status !== 200) {
        const text = await response.text()
        let message = text
        try {
          message = JSON.parse(text)?.error?.message ?? text
        } catch {}
        throw new ImportFailed(`GET ${path} answered ${response.status}: ${message}`)
      }
      return response
    }
  }
}
