import { Validator } from "@seriousme/openapi-schema-validator"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, callerOf, type Host, startHost } from "./client.js"
import { makeChecker, type OpenApiDocument } from "./openapiCheck.js"

/*
 * The OpenAPI document as tools take it (API.md, Conventions): a maintained validator accepts it
 * as OpenAPI 3.1, Ajv (2020-12) compiles it as served, and it says what the host does. That every
 * answer of the end-to-end suites conforms to it is checked where they get them, in the shared
 * client (client.ts, openapiCheck.ts); here, that that check fails on what does not conform.
 */

type Operation = {
  parameters?: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>
  requestBody?: unknown
  security?: Array<unknown>
  responses: Record<string, { headers?: Record<string, { required?: boolean; schema?: Record<string, unknown> }>; content?: any }>
}

let host: Host
let document: OpenApiDocument & { components: { schemas: Record<string, any> } }

beforeAll(async () => {
  host = await startHost({ webhooks: { allowInsecure: true } })
  document = (await host.call("GET", "/v1/openapi.json", { key: null })).body
})
afterAll(() => host?.close())

const operations = (): Array<{ name: string; operation: Operation }> =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation }))
  )

const parameter = (path: string, method: string, name: string) =>
  (document.paths[path]![method] as unknown as Operation).parameters!.find((p) => p.name === name)!

describe("the served OpenAPI document", () => {
  it("validates as OpenAPI 3.1 with @seriousme/openapi-schema-validator", async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document))
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(validator.version).toBe("3.1")
  })

  it("compiles in Ajv 2020-12 as served: every component, body, parameter and header schema", () => {
    const checker = makeChecker(document)
    let compiled = 0
    for (const name of Object.keys(document.components.schemas)) {
      expect(() => checker.compile("components", "schemas", name), name).not.toThrow()
      compiled++
    }
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
        operation.parameters?.forEach((_, i) => {
          checker.compile("paths", path, method, "parameters", String(i), "schema")
        })
        if (operation.requestBody !== undefined)
          checker.compile("paths", path, method, "requestBody", "content", "application/json", "schema")
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const type of Object.keys(response.content ?? {}))
            checker.compile("paths", path, method, "responses", status, "content", type, "schema")
          for (const name of Object.keys(response.headers ?? {}))
            checker.compile("paths", path, method, "responses", status, "headers", name, "schema")
          compiled++
        }
      }
    }
    expect(compiled).toBeGreaterThan(200)
    expect(JSON.stringify(document)).not.toContain('"$id"')
  })

  it("lists per operation the statuses it can answer, and a 500 for every one", () => {
    for (const { name, operation } of operations()) {
      const statuses = Object.keys(operation.responses)
      const body = operation.requestBody !== undefined
      const conditional = operation.parameters?.some((p) => p.in === "header" && p.name === "If-Match") ?? false
      expect(statuses, name).toContain("500")
      expect(statuses.includes("413"), `${name} 413`).toBe(body)
      expect(statuses.includes("415"), `${name} 415`).toBe(body)
      expect(statuses.includes("412"), `${name} 412`).toBe(conditional)
      if (operation.security?.length) expect(statuses, name).toEqual(expect.arrayContaining(["400", "401", "403", "429", "503"]))
    }
    expect(Object.keys((document.paths["/v1/pipelines"]!["get"] as unknown as Operation).responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "429",
      "500",
      "503"
    ])
  })

  it("declares the headers each answer carries", () => {
    for (const { name, operation } of operations()) {
      const secured = (operation.security?.length ?? 0) > 0
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = response.headers ?? {}
        const what = `${name} ${status}`
        expect(headers["X-Request-Id"]?.required, what).toBe(true)
        if (secured && status !== "401")
          expect(Object.keys(headers), what).toEqual(expect.arrayContaining(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]))
        if (status === "429" || status === "503") expect(headers["Retry-After"]?.required, what).toBe(true)
        if (status === "201" || status === "202") expect(headers["Location"]?.required, what).toBe(true)
        if (status === "412") expect(headers["ETag"]?.required, what).toBe(true)
        // A webhook test records nothing, so there is no answer to replay (its description says so); a
        // new API key's answer holds the key, which is stored nowhere, so it is never replayed either.
        const replayable = name.startsWith("POST /v1/") && name !== "POST /v1/webhooks/{id}/test" && name !== "POST /v1/api-keys"
        if (replayable && status.startsWith("2")) expect(headers["Idempotent-Replayed"], what).toBeDefined()
      }
    }
    for (const path of [
      "/v1/contacts/{id}",
      "/v1/deals/{id}",
      "/v1/pipelines/{id}",
      "/v1/webhooks/{id}",
      "/v1/webhooks/{id}/deliveries/{delivery_id}"
    ]) {
      expect((document.paths[path]!["get"] as unknown as Operation).responses["200"]!.headers!["ETag"]?.required, path).toBe(true)
    }
  })

  it("types query parameters: integers, numbers, dates and enums", () => {
    for (const path of ["/v1/contacts", "/v1/deals", "/v1/trash", "/v1/deals/{id}/timeline", "/v1/webhooks/{id}/deliveries"]) {
      expect(parameter(path, "get", "limit").schema, path).toMatchObject({ type: "integer", minimum: 1, maximum: 100 })
    }
    expect(parameter("/v1/deals", "get", "value_min").schema).toMatchObject({ type: "number" })
    expect(parameter("/v1/deals", "get", "value_max").schema).toMatchObject({ type: "number" })
    expect(parameter("/v1/deals", "get", "close_date_from").schema).toMatchObject({ type: "string", format: "date" })
    expect(parameter("/v1/deals", "get", "close_date_to").schema).toMatchObject({ type: "string", format: "date" })
    expect(parameter("/v1/deals", "get", "status").schema).toMatchObject({ enum: ["open", "won", "lost"] })
    expect(parameter("/v1/webhooks/{id}/deliveries", "get", "status").schema).toMatchObject({
      enum: ["pending", "succeeded", "failed", "cancelled"]
    })
    expect(parameter("/v1/trash", "get", "type")).toMatchObject({
      required: true,
      schema: { enum: ["contact", "deal", "company", "activity"] }
    })
    expect(parameter("/v1/custom-fields", "get", "object").schema).toMatchObject({ enum: ["contact", "deal", "company", "activity"] })
  })

  it("names records by $ref in every answer, counts as integers, timestamps and dates with their format", () => {
    for (const { name, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.["application/json"]?.schema
        if (schema !== undefined && name.includes("/v1/")) expect(schema.$ref ?? schema.anyOf, `${name} ${status}`).toBeDefined()
      }
    }
    const schemas = document.components.schemas
    expect(schemas.Stage.properties.position.type).toBe("integer")
    expect(schemas.Delivery.properties.attempt_count.type).toBe("integer")
    expect(schemas.DeliveryAttempt.properties.duration_ms.type).toBe("integer")
    expect(schemas.Contact.properties.created_at.format).toBe("date-time")
    expect(schemas.CustomFieldDefinition.properties.created_at.format).toBe("date-time")
    expect(JSON.stringify(schemas.Deal.properties.expected_close_date)).toContain('"format":"date"')
  })
})

/** A copy of an answer with another status, headers or body. */
const altered = (answer: Answer, change: { status?: number; headers?: Record<string, string | null>; body?: unknown }): Answer => {
  const headers = new Headers(answer.headers)
  for (const [name, value] of Object.entries(change.headers ?? {})) {
    if (value === null) headers.delete(name)
    else headers.set(name, value)
  }
  const text = "body" in change ? JSON.stringify(change.body) : answer.text
  return { status: change.status ?? answer.status, headers, body: JSON.parse(text || "null"), text }
}

describe("the check of every answer against the document", () => {
  it("accepts what the host answers and finds each way an answer can differ from the document", async () => {
    const checker = makeChecker(document)
    const problems = (method: string, path: string, answer: Answer) => checker.problems(method, path, answer)
    const pipeline = await host.call("GET", "/v1/pipelines")
    const id: string = pipeline.body.data[0].id
    const one = await host.call("GET", `/v1/pipelines/${id}`)
    const webhook = await host.call("POST", "/v1/webhooks", { body: { url: "http://127.0.0.1:9/hook", events: ["deal.created"] } })
    expect(webhook.status).toBe(201)
    expect(problems("GET", `/v1/pipelines/${id}`, one)).toEqual([])
    expect(problems("POST", "/v1/webhooks", webhook)).toEqual([])

    // An extra field, a wrong type, a missing field.
    expect(problems("GET", `/v1/pipelines/${id}`, altered(one, { body: { ...one.body, colour: "red" } })).join()).toMatch(
      /must NOT have additional properties.*colour/
    )
    expect(
      problems(
        "GET",
        `/v1/pipelines/${id}`,
        altered(one, { body: { ...one.body, stages: [{ ...one.body.stages[0], position: 0.5 }] } })
      ).join()
    ).toMatch(/\/stages\/0\/position must be integer/)
    const { has_secret: _, ...noSecretFlag } = webhook.body
    expect(problems("POST", "/v1/webhooks", altered(webhook, { body: noSecretFlag })).join()).toMatch(
      /must have required property 'has_secret'/
    )
    // A status the operation does not declare.
    expect(problems("GET", "/v1/pipelines", altered(pipeline, { status: 415 })).join()).toMatch(/status 415 is not declared/)
    // A required header missing, a header of the wrong form.
    expect(problems("POST", "/v1/webhooks", altered(webhook, { headers: { location: null } })).join()).toMatch(
      /header Location is required but missing/
    )
    expect(problems("GET", `/v1/pipelines/${id}`, altered(one, { headers: { etag: 'W/"1"' } })).join()).toMatch(/header ETag/)
    expect(problems("GET", `/v1/pipelines/${id}`, altered(one, { headers: { "ratelimit-remaining": "-1" } })).join()).toMatch(
      /header RateLimit-Remaining/
    )
    expect(problems("GET", "/v1/pipelines", altered(pipeline, { headers: { "x-request-id": null } })).join()).toMatch(
      /header X-Request-Id is required/
    )
    // An error body of the wrong shape, or with the code of another status.
    const missing = await host.call("GET", "/v1/pipelines/pipe_nope")
    expect(missing.status).toBe(404)
    expect(
      problems("GET", "/v1/pipelines/pipe_nope", altered(missing, { body: { error: { ...missing.body.error, code: "conflict" } } })).join()
    ).toMatch(/code must be equal to constant/)
    expect(problems("GET", "/v1/pipelines/pipe_nope", altered(missing, { body: { message: "not found" } })).join()).toMatch(
      /must have required property 'error'/
    )
    // A body where none is declared.
    const deleted = await host.call("DELETE", `/v1/webhooks/${webhook.body.id}`)
    expect(deleted.status).toBe(204)
    expect(problems("DELETE", `/v1/webhooks/${webhook.body.id}`, altered(deleted, { body: {} })).join()).toMatch(
      /a body where none is declared/
    )
  })

  it("fails the request of a suite that gets a non-conforming answer", async () => {
    // A host that serves the real document but answers GET /v1/pipelines with an undeclared 415
    // and GET /v1/webhooks with a page whose items lack their fields.
    const served = JSON.stringify(document)
    const fake: Server = createServer((request, response) => {
      const common = {
        "content-type": "application/json",
        "x-request-id": "req_fake",
        "ratelimit-limit": "1",
        "ratelimit-remaining": "1",
        "ratelimit-reset": "0"
      }
      if (request.url === "/v1/openapi.json") return void response.writeHead(200, { "content-type": "application/json" }).end(served)
      if (request.url === "/v1/pipelines") {
        return void response
          .writeHead(415, common)
          .end(JSON.stringify({ error: { code: "unsupported_media_type", message: "no", details: [], request_id: "req_fake" } }))
      }
      response.writeHead(200, common).end(JSON.stringify({ data: [{ id: "wh_1" }], next_cursor: null }))
    })
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve))
    try {
      const call = callerOf(`http://127.0.0.1:${(fake.address() as AddressInfo).port}`)
      await expect(call("GET", "/v1/pipelines")).rejects.toThrow(
        /GET \/v1\/pipelines → 415 does not conform.*\n.*status 415 is not declared/
      )
      await expect(call("GET", "/v1/webhooks")).rejects.toThrow(/must have required property 'url'/)
    } finally {
      await new Promise((resolve) => fake.close(resolve))
    }
  })
})
