import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, type Host, startHost } from "./client.js"

/*
 * Query parameters and headers HttpApi decodes (packages/http/src/parameters.ts) answer a request
 * with one bad value exactly as the engine does (and did, before HttpApi decoded them): the same
 * status, code, message and details. Each row is one such request and its whole error.
 */

let host: Host
let ids: { contact: string; deal: string; webhook: string }

beforeAll(async () => {
  host = await startHost({ webhooks: { allowInsecure: true } })
  const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
  ids = {
    contact: (await host.call("POST", "/v1/contacts", { body: { email: "params@example.com" } })).body.id,
    deal: (await host.call("POST", "/v1/deals", { body: { name: "D", pipeline_id: pipeline.id } })).body.id,
    webhook: (await host.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/hook", events: ["deal.created"] } })).body.id
  }
})
afterAll(() => host?.close())

const refused = (path: string, message: string) => ({ message: `${path} ${message}`, details: [{ path, message }] })

const LIMIT = "must be an integer from 1 to 100"
const UNSTORABLE = "contains U+0000 or an unpaired surrogate, which cannot be stored"
const ONCE = "must be given at most once"

describe("query parameters HttpApi decodes answer as the engine does", () => {
  const cases = (): ReadonlyArray<readonly [string, { message: string; details: ReadonlyArray<{ path: string; message: string }> }]> => [
    ["/v1/contacts?limit=0", refused("limit", LIMIT)],
    ["/v1/contacts?limit=101", refused("limit", LIMIT)],
    ["/v1/contacts?limit=ten", refused("limit", LIMIT)],
    ["/v1/contacts?limit=%2B5", refused("limit", LIMIT)],
    ["/v1/contacts?limit=5.0", refused("limit", LIMIT)],
    ["/v1/contacts?limit=", refused("limit", LIMIT)],
    ["/v1/contacts?limit=%00", refused("limit", UNSTORABLE)],
    ["/v1/contacts?limit=5&limit=6", refused("limit", ONCE)],
    ["/v1/trash?type=contact&limit=0", refused("limit", LIMIT)],
    [`/v1/deals/${ids.deal}/timeline?limit=1000`, refused("limit", LIMIT)],
    [`/v1/webhooks/${ids.webhook}/deliveries?limit=0`, refused("limit", LIMIT)],
    ["/v1/deals?status=maybe", refused("status", "must be one of open, won, lost")],
    ["/v1/deals?status=", refused("status", "must be one of open, won, lost")],
    ["/v1/deals?status=%00", refused("status", UNSTORABLE)],
    ["/v1/deals?status=open&status=won", refused("status", ONCE)],
    ["/v1/deals?value_min=abc", refused("value_min", "must be a number")],
    ["/v1/deals?value_max=1e999", refused("value_max", "must be a number")],
    ["/v1/deals?value_min=0x10", refused("value_min", "must be a number")],
    ["/v1/deals?close_date_from=2026-02-30", refused("close_date_from", "must be a date written YYYY-MM-DD")],
    ["/v1/deals?close_date_to=31.12.2026", refused("close_date_to", "must be a date written YYYY-MM-DD")],
    [`/v1/webhooks/${ids.webhook}/deliveries?status=lost`, refused("status", "must be one of pending, succeeded, failed, cancelled")],
    [`/v1/webhooks/${ids.webhook}/deliveries?status=%00`, refused("status", UNSTORABLE)],
    ["/v1/trash", refused("type", "is required (contact, deal, company, activity)")],
    ["/v1/trash?type=lead", refused("type", "must be one of contact, deal, company, activity")],
    ["/v1/trash?type=%00", refused("type", "must be one of contact, deal, company, activity")],
    ["/v1/trash?type=contact&type=deal", refused("type", ONCE)],
    ["/v1/custom-fields?object=lead", refused("object", "must be one of contact, deal, company, activity")],
    ["/v1/custom-fields?object=%00", refused("object", "must be one of contact, deal, company, activity")],
    [`/v1/contacts/${ids.contact}?expand=friends`, refused("expand", 'has an unknown value "friends"; use deals, companies, activities')],
    [`/v1/contacts/${ids.contact}?expand=deals,`, refused("expand", 'has an unknown value ""; use deals, companies, activities')],
    [`/v1/contacts/${ids.contact}?expand=deals&expand=activities`, refused("expand", ONCE)],
    // Several bad deal parameters: all reported, in the engine's order.
    [
      "/v1/deals?close_date_to=x&value_min=y&status=z",
      {
        message: "status must be one of open, won, lost",
        details: [
          { path: "status", message: "must be one of open, won, lost" },
          { path: "value_min", message: "must be a number" },
          { path: "close_date_to", message: "must be a date written YYYY-MM-DD" }
        ]
      }
    ],
    // Still the engine's and the edge's own: names the endpoint does not take.
    ["/v1/contacts?colour=red", refused("colour", "is not a known parameter")],
    [`/v1/deals/${ids.deal}?colour=red&colour=blue`, refused("colour", ONCE)]
  ]

  it("one bad value: 400 validation_error with the engine's message and path", async () => {
    for (const [path, expected] of cases()) {
      const answer = await host.call("GET", path)
      expect(answer.status, path).toBe(400)
      const { code, details, message } = errorOf(answer)
      expect({ path, code, message, details }).toEqual({ path, code: "validation_error", ...expected })
    }
  })

  it("good values pass", async () => {
    for (const path of [
      "/v1/contacts?limit=1",
      "/v1/contacts?limit=100",
      "/v1/deals?status=won&value_min=-1.5e2&value_max=.5&close_date_from=2024-02-29&close_date_to=2026-12-31",
      `/v1/webhooks/${ids.webhook}/deliveries?status=cancelled&limit=3`,
      "/v1/trash?type=deal",
      "/v1/custom-fields?object=deal",
      `/v1/contacts/${ids.contact}?expand=%20deals%20,activities`,
      `/v1/contacts/${ids.contact}?expand=`
    ]) {
      expect((await host.call("GET", path)).status, path).toBe(200)
    }
  })
})

describe("headers HttpApi decodes answer as before", () => {
  it("If-Match that is no single ETag, and an Idempotency-Key of the wrong length: 400 at the header", async () => {
    const ifMatch = await host.call("PATCH", `/v1/contacts/${ids.contact}`, { body: { first_name: "A" }, headers: { "if-match": "W/2x" } })
    expect(ifMatch.status).toBe(400)
    expect(errorOf(ifMatch)).toMatchObject(refused("If-Match", 'must be an ETag from a previous response ("<version>") or *'))
    for (const key of ["", "k".repeat(256)]) {
      const answer = await host.call("POST", "/v1/contacts", { body: { email: "key@example.com" }, headers: { "idempotency-key": key } })
      expect(answer.status, `${key.length} characters`).toBe(400)
      expect(errorOf(answer)).toMatchObject(refused("Idempotency-Key", "must be 1 to 255 characters"))
    }
    const unconditional = await host.call("PATCH", `/v1/contacts/${ids.contact}`, {
      body: { first_name: "B" },
      headers: { "if-match": " * " }
    })
    expect(unconditional.status).toBe(200)
  })
})
