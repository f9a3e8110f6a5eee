import { encodeCursor } from "@dealstream/core"
import { describe, expect, it } from "vitest"
import { errorOf, hostFor, STORAGES } from "../http/client.js"
import { sendRaw } from "./rawHttp.js"

// One example of each failure the hostile-input fuzz (fuzz.e2e.pg.spec.ts) found, on both storages, so
// that each stays fixed even on a run whose random requests miss it.

describe.each(STORAGES)("%s storage: what the fuzz found", (storage) => {
  const host = hostFor(storage)

  const seed = async () => {
    const contact = (await host.call("POST", "/v1/contacts", { body: { email: `${Math.random().toString(36).slice(2)}@example.com` } }))
      .body
    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const deal = (await host.call("POST", "/v1/deals", { body: { name: "D", pipeline_id: pipeline.id } })).body
    return { contact: contact.id as string, deal: deal.id as string, pipeline: pipeline.id as string }
  }

  it("U+0000 in a path parameter is 400 at that parameter, on every route that takes one", async () => {
    const { deal } = await seed()
    const paths: Array<[string, string, string]> = [
      ["GET", "/v1/contacts/%00", "id"],
      ["PATCH", "/v1/contacts/a%00b", "id"],
      ["DELETE", "/v1/deals/%00", "id"],
      ["POST", "/v1/deals/%00/restore", "id"],
      ["GET", "/v1/pipelines/%00", "id"],
      ["GET", "/v1/webhooks/%00", "id"],
      ["GET", "/v1/webhooks/wh_x/deliveries/%00", "delivery_id"],
      ["DELETE", "/v1/custom-fields/contact/%00", "key"],
      ["DELETE", "/v1/custom-fields/%00/industry", "object"],
      ["GET", `/v1/deals/${deal}%00/timeline`, "id"]
    ]
    for (const [method, path, param] of paths) {
      const answer = await host.call(method, path, method === "PATCH" ? { body: {} } : {})
      expect(answer.status, `${method} ${path} ${answer.text}`).toBe(400)
      expect(errorOf(answer).details).toEqual([{ path: param, message: "must not contain U+0000" }])
    }
  })

  it("a write with another kind's id is 404", async () => {
    const { contact, deal, pipeline } = await seed()
    for (const [method, path, body] of [
      ["PATCH", `/v1/contacts/${deal}`, { first_name: "X" }],
      ["DELETE", `/v1/webhooks/${contact}`, undefined],
      ["PATCH", `/v1/pipelines/${contact}`, { name: "X" }],
      ["PUT", `/v1/deals/${pipeline}/stage`, { stage_id: "stage_x" }]
    ] as const) {
      const answer = await host.call(method, path, body === undefined ? {} : { body })
      expect(answer.status, `${method} ${path} ${answer.text}`).toBe(404)
      expect(errorOf(answer).code).toBe("not_found")
    }
  })

  it("a body nested 10 000 levels deep is 400, with or without an Idempotency-Key", async () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000)
    const bare: Record<string, string> = { "content-type": "application/json" }
    for (const headers of [bare, { ...bare, "idempotency-key": "deep-1" }]) {
      const answer = await host.call("POST", "/v1/contacts", { raw: `{"email":"deep@example.com","title":${deep}}`, headers })
      expect(answer.status, answer.text).toBe(400)
      expect(errorOf(answer).code).toBe("validation_error")
    }
  })

  it("U+0000 spelled in a filter's JSON, or in a cursor re-encoded by hand, is 400", async () => {
    for (const filter of ['{"email":"a\\u0000"}', '{"email":{"$in":["\\u0000"]}}', '{"email":{"$contains":"\\u0000"}}']) {
      const answer = await host.call("GET", `/v1/contacts?filter=${encodeURIComponent(filter)}`)
      expect(answer.status, answer.text).toBe(400)
      expect(errorOf(answer).details[0]?.path).toMatch(/^filter\.email/)
    }
    await seed()
    await seed()
    const page = await host.call("GET", "/v1/contacts?limit=1&sort=email")
    const [fingerprint] = JSON.parse(Buffer.from(page.body.next_cursor, "base64url").toString("utf8"))
    for (const position of [
      { value: "a\u0000", id: "con_x" },
      { value: "a", id: "con_\u0000" }
    ]) {
      const answer = await host.call("GET", `/v1/contacts?limit=1&sort=email&cursor=${encodeCursor(fingerprint, position)}`)
      expect(answer.status, answer.text).toBe(400)
      expect(errorOf(answer).details).toEqual([{ path: "cursor", message: "is not a valid cursor" }])
    }
  })

  it("bytes Node's parser refuses, and an unknown Expect, are answered in the error shape", async () => {
    for (const [bytes, status] of [
      [Buffer.from("GET /v1/contacts/\xff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "latin1"), 400],
      [Buffer.from(`GET /v1/contacts?search=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 431],
      [Buffer.from("GET /v1/contacts HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n"), 417]
    ] as const) {
      const answer = await sendRaw(host.url, bytes)
      expect(answer.status).toBe(status)
      const body = JSON.parse(answer.text)
      expect(body.error.request_id).toBe(answer.headers["x-request-id"])
      expect(Array.isArray(body.error.details)).toBe(true)
    }
  })
})
