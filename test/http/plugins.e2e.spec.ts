import { Validator } from "@seriousme/openapi-schema-validator"
import { RecordTypes } from "@dealstream/core"
import { Api, HostLive, MemoryEngineLive, StartupError, startServer } from "@dealstream/http"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { OpenApi } from "effect/http-api"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { note } from "../plugins/note/note.js"
import { callerOf, errorOf, type Host, KEY_A, startHost } from "./client.js"
import { makeChecker, type OpenApiDocument } from "./openapiCheck.js"

/*
 * A record type plug-in as the HTTP host serves it: the API is made from the plug-ins the host is
 * given (RecordTypes), so its document, its docs page and the lists that name record types include
 * them. The engine's plug-in services are another suite's: here a request to /v1/notes is followed
 * only as far as the group's authentication.
 */

type Document = OpenApiDocument & { components: { schemas: Record<string, any> } }

const documentOf = async (host: Pick<Host, "call">): Promise<Document> => (await host.call("GET", "/v1/openapi.json", { key: null })).body

const NOTE_EVENTS = ["note.created", "note.updated", "note.deleted", "note.restored"]

/** An unauthenticated request's answer, as far as a client can tell one group's from another's. */
const refusal = async (host: Pick<Host, "call">, method: string, path: string) => {
  const answer = await host.call(method, path, { key: null, ...(method === "GET" ? {} : { body: {} }) })
  return { status: answer.status, code: errorOf(answer).code, challenge: answer.headers.get("www-authenticate") }
}

describe("a host given the note plug-in", () => {
  let host: Host
  let document: Document
  beforeAll(async () => {
    host = await startHost({ recordTypes: [note] })
    document = await documentOf(host)
  })
  afterAll(() => host?.close())

  it("documents /v1/notes with the standard endpoints of a record resource", () => {
    const methods = (path: string) => Object.keys(document.paths[path] ?? {}).sort()
    expect(methods("/v1/notes")).toEqual(["get", "post"])
    expect(methods("/v1/notes/{id}")).toEqual(["delete", "get", "patch"])
    expect(methods("/v1/notes/batch")).toEqual(["post"])
    expect(methods("/v1/notes/{id}/restore")).toEqual(["post"])
    expect(methods("/v1/notes/{id}/history")).toEqual(["get"])
    expect((document["tags"] as Array<{ name: string }>).map((tag) => tag.name)).toContain("notes")
    // Authenticated like every /v1 resource, with scopes of its own.
    expect(document.paths["/v1/notes"]!["get"]!).toMatchObject({ security: [{ bearer: ["notes:read"] }] })
    expect(document.paths["/v1/notes/{id}"]!["patch"]!).toMatchObject({ security: [{ bearer: ["notes:write"] }] })
  })

  it("names the note's schemas after its title, read off its fields", () => {
    const { Note, NoteInput, NotePatch, NotePage } = document.components.schemas
    expect(Object.keys(Note.properties)).toEqual(note.fields.map((field) => field.name))
    expect(Object.keys(NoteInput.properties)).toEqual(["title", "body", "slug"])
    expect(NoteInput.required).toEqual(["title"])
    expect(NotePatch.required ?? []).toEqual([])
    expect(NotePage.properties.data.items).toEqual({ $ref: "#/components/schemas/Note" })
    // No custom field is defined on a plug-in: its bodies and answers are closed.
    expect(Note.additionalProperties).toBe(false)
    expect(NoteInput.additionalProperties).toBe(false)
    // The batch upserts on the unique field.
    const operation = document.components.schemas.NoteBatch.properties.operations.items.properties
    expect(operation.op.enum).toEqual(["create", "update", "upsert"])
    expect(operation.match.description).toContain('{"slug": "…"}')
  })

  it("lists note among the trash's types and its events among the webhooks'", () => {
    const { TrashItem, WebhookEventType, WebhookInput } = document.components.schemas
    expect(TrashItem.properties.type.enum).toEqual(["contact", "deal", "company", "activity", "note"])
    const trashType = (document.paths["/v1/trash"]!["get"] as any).parameters.find((p: { name: string }) => p.name === "type")
    expect(trashType.schema.enum).toEqual(["contact", "deal", "company", "activity", "note"])
    expect(WebhookEventType.properties.type.enum).toEqual(expect.arrayContaining(NOTE_EVENTS))
    expect(WebhookEventType.properties.type.enum.at(-1)).toBe("webhook.test")
    for (const event of NOTE_EVENTS) expect(WebhookInput.properties.events.items.description).toContain(event)
  })

  it("is a valid OpenAPI 3.1 document, every schema of which Ajv compiles", async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document))
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    const checker = makeChecker(document)
    for (const name of Object.keys(document.components.schemas)) {
      expect(() => checker.compile("components", "schemas", name), name).not.toThrow()
    }
  })

  it("routes /v1/notes to its group, authenticated as /v1/companies is", async () => {
    for (const [method, path] of [
      ["GET", "/v1/notes"],
      ["POST", "/v1/notes"],
      ["GET", "/v1/notes/note_1"],
      ["PATCH", "/v1/notes/note_1"],
      ["POST", "/v1/notes/batch"],
      ["GET", "/v1/notes/note_1/history"]
    ] as const) {
      const companies = path.replace("/v1/notes", "/v1/companies").replace("note_1", "com_1")
      expect(await refusal(host, method, path), `${method} ${path}`).toEqual(await refusal(host, method, companies))
    }
    expect((await refusal(host, "GET", "/v1/notes")).status).toBe(401)
  })

  it("answers the note's events among the webhook event types, each with its payload's schema", async () => {
    const answer = await host.call("GET", "/v1/webhook-event-types")
    expect(answer.status).toBe(200)
    const types = answer.body.data as Array<{ type: string; description: string; schema: any }>
    expect(types.map((type) => type.type).filter((type) => type.startsWith("note."))).toEqual(NOTE_EVENTS)
    const created = types.find((type) => type.type === "note.created")!
    expect(created.description).toContain("data.note")
    expect(Object.keys(created.schema.properties.note.properties)).toEqual(note.fields.map((field) => field.name))
    expect(types.find((type) => type.type === "note.deleted")!.schema.properties).toHaveProperty("id")
  })

  it("describes it on /docs as well", async () => {
    const page = await host.call("GET", "/docs", { key: null })
    expect(page.status).toBe(200)
    expect(page.text).toContain("/v1/notes/{id}/restore")
  })
})

describe("a host given no plug-in", () => {
  let host: Host
  beforeAll(async () => {
    host = await startHost()
  })
  afterAll(() => host?.close())

  it("serves the built-in API, the one the typed client is derived from, and no /v1/notes", async () => {
    const served = await host.call("GET", "/v1/openapi.json", { key: null })
    expect(served.text).toBe(JSON.stringify(OpenApi.fromApi(Api)))
    expect(served.body.paths["/v1/notes"]).toBeUndefined()
    const missing = await host.call("GET", "/v1/notes")
    expect(missing.status).toBe(404)
    expect(errorOf(missing).code).toBe("not_found")
  })
})

/** HostLive as an embedder composes it, over a memory engine, on a free port for the enclosing describe block. */
const hostLiveFor = (compose: (host: ReturnType<typeof HostLive>) => Layer.Layer<HttpServer.HttpServer, unknown>): Pick<Host, "call"> => {
  let scope: Scope.Closeable | undefined
  let call: Host["call"] | undefined
  beforeAll(async () => {
    const host = HostLive({
      port: 0,
      host: "127.0.0.1",
      apiKeys: [{ workspaceId: "ws_a", key: KEY_A }],
      rateLimit: 100,
      rateBurst: 200,
      log: false
    })
    scope = Effect.runSync(Scope.make())
    const address = Context.get(await Effect.runPromise(Layer.buildWithScope(compose(host), scope)), HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
    call = callerOf(`http://127.0.0.1:${address.port}`)
  })
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return {
    call: (method, path, options) => {
      if (call === undefined) throw new Error("the host starts in beforeAll")
      return call(method, path, options)
    }
  }
}

describe("HostLive given RecordTypes once, below the host and its engine", () => {
  const host = hostLiveFor((hostLive) =>
    hostLive.pipe(Layer.provide(MemoryEngineLive()), Layer.provide(Layer.succeed(RecordTypes, [note])))
  )

  it("serves the plug-in from the API down to the engine and its storage", async () => {
    expect((await documentOf(host)).paths["/v1/notes/{id}"]).toBeDefined()
    expect((await refusal(host, "GET", "/v1/notes")).status).toBe(401)
    const notes = await host.call("GET", "/v1/notes")
    expect(notes.status, notes.text).toBe(200)
    expect(notes.body).toEqual({ data: [], next_cursor: null })
  })
})

describe("HostLive given RecordTypes over an engine built without them", () => {
  const host = hostLiveFor((hostLive) =>
    hostLive.pipe(Layer.provide(Layer.succeed(RecordTypes, [note])), Layer.provide(MemoryEngineLive()))
  )

  it("documents the plug-in, and answers its routes with 500 as the engine serves no such record type", async () => {
    expect((await documentOf(host)).paths["/v1/notes"]).toBeDefined()
    const notes = await host.call("GET", "/v1/notes")
    expect(notes.status).toBe(500)
    expect(errorOf(notes).code).toBe("internal_error")
    expect((await host.call("GET", "/v1/companies")).status).toBe(200)
  })
})

describe("a plug-in whose plural names a group of the API", () => {
  it("stops the host from starting, saying which", async () => {
    const started = startServer({
      port: 0,
      host: "127.0.0.1",
      apiKeys: `ws_a:${KEY_A}`,
      log: false,
      recordTypes: [{ ...note, plural: "webhooks" }]
    })
    await expect(started).rejects.toThrow(StartupError)
    await expect(started).rejects.toThrow('The record type plug-in "note" has the plural "webhooks", which names another group of the API.')
  })
})

describe("a plug-in whose title is not its name capitalised", () => {
  it("is called by its name in its history's description, not by its title lower-cased", async () => {
    const ticket = { ...note, name: "support_ticket", plural: "support-tickets", title: "SupportTicket", prefix: "tkt" }
    const host = await startHost({ recordTypes: [ticket] })
    try {
      const history = (await documentOf(host)).paths["/v1/support-tickets/{id}/history"]!["get"]! as { readonly description?: string }
      expect(history.description).toContain("Every change to the support_ticket since it was created")
      expect(history.description).not.toContain("supportticket")
    } finally {
      await host.close()
    }
  })
})
