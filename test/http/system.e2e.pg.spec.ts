import {
  DeliveryQueue,
  EngineLive,
  IdsLive,
  Storage,
  StorageUnavailable,
  WebhookConfig,
  WebhookTransport,
  WebhookTransportUnavailable
} from "@dealstream/core"
import { HostLive } from "@dealstream/http"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, type Host, hostFor, KEY_A, startHost, STORAGES } from "./client.js"

// The documents and the error shape do not depend on storage (memory here); the probes ask the
// storage, so they run on each.
let host: Host
beforeAll(async () => {
  host = await startHost()
})
afterAll(() => host.close())

describe.each(STORAGES)("probes on %s storage", (storage) => {
  const probed = hostFor(storage)

  it("answers /healthz and /readyz", async () => {
    const health = await probed.call("GET", "/healthz", { key: null })
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: "ok" })
    const ready = await probed.call("GET", "/readyz", { key: null })
    expect(ready.status).toBe(200)
    // The server that takes writes, as it names itself; none for memory. No read replicas here.
    expect(ready.body).toEqual({
      status: "ready",
      primary: storage === "memory" ? null : expect.stringMatching(/^\S+:\d+$/),
      replicas: []
    })
  })
})

describe("documentation and probes", () => {
  it("serves the OpenAPI 3.1 document listing every path, without auth", async () => {
    const answer = await host.call("GET", "/v1/openapi.json", { key: null })
    expect(answer.status).toBe(200)
    const spec = JSON.parse(answer.text)
    expect(spec.openapi).toBe("3.1.0")
    expect(Object.keys(spec.paths).sort()).toEqual([
      "/healthz",
      "/readyz",
      "/v1/activities",
      "/v1/activities/export",
      "/v1/activities/{id}",
      "/v1/activities/{id}/history",
      "/v1/activities/{id}/restore",
      "/v1/api-keys",
      "/v1/api-keys/{id}",
      "/v1/companies",
      "/v1/companies/batch",
      "/v1/companies/duplicates",
      "/v1/companies/export",
      "/v1/companies/{id}",
      "/v1/companies/{id}/history",
      "/v1/companies/{id}/merge",
      "/v1/companies/{id}/restore",
      "/v1/companies/{id}/unmerge",
      "/v1/contacts",
      "/v1/contacts/batch",
      "/v1/contacts/duplicates",
      "/v1/contacts/export",
      "/v1/contacts/{id}",
      "/v1/contacts/{id}/erase",
      "/v1/contacts/{id}/export",
      "/v1/contacts/{id}/history",
      "/v1/contacts/{id}/merge",
      "/v1/contacts/{id}/restore",
      "/v1/contacts/{id}/unmerge",
      "/v1/custom-fields",
      "/v1/custom-fields/{object}/{key}",
      "/v1/deals",
      "/v1/deals/batch",
      "/v1/deals/export",
      "/v1/deals/forecast",
      "/v1/deals/{id}",
      "/v1/deals/{id}/history",
      "/v1/deals/{id}/restore",
      "/v1/deals/{id}/stage",
      "/v1/deals/{id}/timeline",
      "/v1/events",
      "/v1/events/{id}",
      "/v1/pipelines",
      "/v1/pipelines/{id}",
      "/v1/pipelines/{id}/conversion",
      "/v1/pipelines/{id}/summary",
      "/v1/trash",
      "/v1/webhook-event-types",
      "/v1/webhooks",
      "/v1/webhooks/{id}",
      "/v1/webhooks/{id}/deliveries",
      "/v1/webhooks/{id}/deliveries/{delivery_id}",
      "/v1/webhooks/{id}/deliveries/{delivery_id}/replay",
      "/v1/webhooks/{id}/recover",
      "/v1/webhooks/{id}/recoveries/{job_id}",
      "/v1/webhooks/{id}/test"
    ])
    expect(Object.keys(spec.paths["/v1/deals/{id}"]).sort()).toEqual(["delete", "get", "patch"])
    expect(Object.keys(spec.paths["/v1/webhooks/{id}"]).sort()).toEqual(["delete", "get", "patch"])
    expect(Object.keys(spec.paths["/v1/api-keys"]).sort()).toEqual(["get", "post"])
    expect(Object.keys(spec.paths["/v1/api-keys/{id}"]).sort()).toEqual(["delete", "get", "patch"])
    // Every key operation needs keys:manage; the key itself is answered once, by the POST, and never replayed.
    for (const operation of [...Object.values(spec.paths["/v1/api-keys"]), ...Object.values(spec.paths["/v1/api-keys/{id}"])]) {
      expect((operation as { security: unknown }).security).toEqual([{ bearer: ["keys:manage"] }])
    }
    expect(spec.components.schemas.CreatedApiKey.properties).toHaveProperty("key")
    expect(spec.components.schemas.ApiKey.properties).not.toHaveProperty("key")
    expect(spec.paths["/v1/api-keys"].post.responses["201"].headers).not.toHaveProperty("Idempotent-Replayed")
    expect(Object.keys(spec.paths["/v1/webhooks/{id}/deliveries/{delivery_id}/replay"].post.responses)).toContain("202")
    // A person's data: both operations need privacy:manage, and say what they answer.
    const exported = spec.paths["/v1/contacts/{id}/export"].get
    const erased = spec.paths["/v1/contacts/{id}/erase"].post
    for (const operation of [exported, erased]) expect(operation.security).toEqual([{ bearer: ["privacy:manage"] }])
    expect(exported.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/ContactExport")
    expect(erased.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/ContactErasure")
    expect(Object.keys(erased.responses).sort()).toEqual(["200", "400", "401", "403", "404", "409", "429", "500", "503"])
    expect(Object.keys(spec.components.schemas.ContactErasure.properties)).toEqual([
      "id",
      "erased_at",
      "redacted",
      "unlinked",
      "erased_activities"
    ])
    // The secret is write-only: accepted in the input, absent from the record.
    expect(spec.components.schemas.WebhookInput.properties).toHaveProperty("secret")
    expect(spec.components.schemas.Webhook.properties).not.toHaveProperty("secret")
    expect(spec.components.securitySchemes).toHaveProperty("bearer")
    // Errors are documented in the shape they are sent in.
    const created = spec.paths["/v1/contacts"].post
    expect(Object.keys(created.responses).sort()).toEqual(["201", "400", "401", "403", "404", "409", "413", "415", "429", "500", "503"])
    const validation = spec.components.schemas.ValidationError
    expect(validation.properties.error.required).toEqual(["code", "message", "details", "request_id"])
    // Custom fields are documented as additional properties of records.
    expect(spec.components.schemas.Contact.additionalProperties).toBeTruthy()
  })

  it("serves /docs as Scalar's reference over the same document, self-contained, without auth", async () => {
    const answer = await host.call("GET", "/docs", { key: null })
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/)
    expect(answer.text).toMatch(/^<!doctype html>/i)
    // Two inline scripts, none loaded from elsewhere: Scalar's own, and the one that starts it.
    const scripts = [...answer.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    expect(scripts.map(([, attributes]) => attributes)).toEqual(["", ""])
    const [scalar, boot] = scripts.map(([, , code]) => code!)
    expect(scalar).toContain("@scalar/api-reference")
    expect(boot).toContain("window.Scalar.createApiReference(")
    // The markup refers to nothing outside the page. (Scalar's code names the URLs of its fonts and
    // services, used when told to; test/http/docs.e2e.spec.ts checks what a browser requests.)
    const markup = answer.text.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "<script></script>")
    expect(markup).not.toMatch(/<link|<iframe|<img|src=|href=|@import|url\(|https?:\/\//i)
    // Scalar is given the document the host serves at /v1/openapi.json, and the settings that keep
    // it from fetching its fonts and offering to upload the document. Each is one line of JSON.
    const lines = boot!.split("\n").map((line) => line.trim())
    const settings = JSON.parse(lines.find((line) => line.startsWith("...{"))!.slice("...".length, -",".length))
    const content = JSON.parse(lines.find((line) => line.startsWith("content: {"))!.slice("content: ".length))
    const document = await host.call("GET", "/v1/openapi.json", { key: null })
    expect(content).toEqual(JSON.parse(document.text))
    expect(settings).toMatchObject({ withDefaultFonts: false, showDeveloperTools: "never" })
    expect(settings).not.toHaveProperty("proxyUrl")
    // As on the probes, query parameters are not looked at, and the request id is echoed.
    const again = await host.call("GET", "/docs?lang=en&lang=fr", { key: null, headers: { "x-request-id": "docs-page-1" } })
    expect(again.status).toBe(200)
    expect(again.headers.get("x-request-id")).toBe("docs-page-1")
    expect(again.text).toBe(answer.text)
  })

  it("/readyz is 503 unavailable, with no internals, when storage cannot be reached", async () => {
    // The real engine and memory storage, with the storage's ping failing as an unreachable database's would.
    const unreachable = Layer.effectContext(
      Effect.gen(function* () {
        const storage = yield* Storage
        const failing = { ...storage, ping: Effect.fail(new StorageUnavailable({ message: "connect ECONNREFUSED db.internal:5432" })) }
        return Context.make(Storage, failing).pipe(Context.add(DeliveryQueue, yield* DeliveryQueue))
      })
    ).pipe(Layer.provide(MemoryStorage.layer))
    const layer = HostLive({
      port: 0,
      host: "127.0.0.1",
      apiKeys: [{ workspaceId: "ws_a", key: KEY_A }],
      rateLimit: 100,
      rateBurst: 100,
      log: false
    }).pipe(
      Layer.provide(
        EngineLive.pipe(
          Layer.provideMerge(IdsLive),
          Layer.provideMerge(unreachable),
          // An embedder's own engine may have no way to send webhooks; the host still runs.
          Layer.provideMerge(WebhookConfig.layer()),
          Layer.provideMerge(Layer.succeed(WebhookTransport, WebhookTransportUnavailable))
        )
      )
    )
    const scope = Effect.runSync(Scope.make())
    try {
      const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
      const address = Context.get(context, HttpServer.HttpServer).address
      if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
      const response = await fetch(`http://127.0.0.1:${address.port}/readyz`)
      expect(response.status).toBe(503)
      const text = await response.text()
      expect(JSON.parse(text).error.code).toBe("unavailable")
      expect(text).not.toContain("db.internal")
      expect((await fetch(`http://127.0.0.1:${address.port}/healthz`)).status).toBe(200)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})

describe("error body", () => {
  it("every error carries code, message, details and the request id", async () => {
    const answer = await host.call("GET", "/v1/contacts/con_nope")
    const error = errorOf(answer)
    expect(error).toEqual({ code: "not_found", message: expect.any(String), details: [], request_id: answer.headers.get("x-request-id") })
  })
})
