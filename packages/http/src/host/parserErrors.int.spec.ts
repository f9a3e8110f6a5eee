import { createServer, type Server } from "node:http"
import { connect, type AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerParserErrors } from "./parserErrors.js"

// Found by the hostile-input fuzz (test/hostile): requests Node's parser refuses, and an unknown
// Expect, were answered by Node itself with an empty body instead of the API's error body.

let server: Server
let port: number
let next = 0
const reached: Array<string> = []

beforeAll(async () => {
  server = createServer((request, response) => {
    reached.push(request.url ?? "")
    response.end("ok")
  })
  answerParserErrors(server, () => `req_${++next}`)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Writes the bytes (without half-closing, which Node takes for a client gone) and reads to the close. */
const send = (bytes: Buffer | string) =>
  new Promise<{ status: number; headers: Record<string, string>; body: any }>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes))
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("close", () => {
      const raw = Buffer.concat(chunks).toString("latin1")
      const [head = "", body = ""] = raw.split("\r\n\r\n")
      const [statusLine = "", ...lines] = head.split("\r\n")
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()])
      )
      const json = (headers["content-type"] ?? "").startsWith("application/json")
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: json ? JSON.parse(body) : body })
    })
  })

const expectErrorBody = (answer: Awaited<ReturnType<typeof send>>, status: number, code: string) => {
  expect(answer.status).toBe(status)
  expect(answer.headers["content-type"]).toBe("application/json")
  expect(answer.body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array), request_id: answer.headers["x-request-id"] }
  })
  expect(answer.headers["x-request-id"]).toMatch(/^req_\d+$/)
}

describe("requests Node's parser refuses", () => {
  it("raw bytes in the target or control characters in a header: 400 in the error shape", async () => {
    expectErrorBody(await send(Buffer.from("GET /v1/contacts/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n", "latin1")), 400, "validation_error")
    expectErrorBody(await send("GET /v1/contacts HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\x01b\r\n\r\n"), 400, "validation_error")
    expectErrorBody(await send("POST /v1/contacts HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n{}"), 400, "validation_error")
    expectErrorBody(await send("G E T / HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "validation_error")
    expect(reached).toEqual([])
  })

  it("a request head over 16 KiB: 431 payload_too_large in the error shape", async () => {
    expectErrorBody(await send(`GET /v1/contacts?search=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`), 431, "payload_too_large")
  })

  it("an Expect other than 100-continue: 417 with the request's id, never reaching the app", async () => {
    const answer = await send(
      "GET /v1/contacts HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nX-Request-Id: trace-1\r\nConnection: close\r\n\r\n"
    )
    expect(answer.status).toBe(417)
    expect(answer.body).toEqual({
      error: {
        code: "validation_error",
        message: "Expect supports only 100-continue",
        details: [{ path: "Expect", message: "supports only 100-continue" }],
        request_id: "trace-1"
      }
    })
    expect(reached).toEqual([])
  })

  it("leaves well-formed requests to the app", async () => {
    const answer = await send("GET /fine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    expect(answer.status).toBe(200)
    expect(reached).toEqual(["/fine"])
  })
})
