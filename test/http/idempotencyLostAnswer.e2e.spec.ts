import { Engine, EngineLive, IdempotencyClaim, IdsLive, type RequestContext } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fingerprint } from "../../packages/http/src/idempotency.js"
import { noWebhookSending } from "../support/engine.js"
import { testDatabase } from "../support/pg.js"
import { errorOf, type Host, startHost } from "./client.js"

// A host that stopped after committing a POST made with an Idempotency-Key and before storing its
// answer: played here by a second engine on the same database, which commits the write under the
// key and then stops, as the host would have. The retry must find the write, not make it again.

const ctx: RequestContext = { workspaceId: "ws_a", requestId: null, actor: "stopped-host" }
const scope = Effect.runSync(Scope.make())
let url = ""
let host: Host

beforeAll(async () => {
  url = await Effect.runPromise(Scope.extend(testDatabase, scope))
  host = await startHost({ storage: { postgres: url } })
})
afterAll(async () => {
  await host?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** What the stopped host did: the write, under the key, and nothing after it. */
const writeAndStop = <A>(key: string, method: string, path: string, body: unknown, write: (engine: typeof Engine.Service) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.flatMap(Engine, (engine) =>
      write(engine).pipe(Effect.provideService(IdempotencyClaim, { key, fingerprint: fingerprint(method, path, body) }))).pipe(
        Effect.provide(EngineLive.pipe(Layer.provide(PgStorage.layer(url)), Layer.provide(IdsLive), Layer.provide(noWebhookSending)))
      )
  )

describe("an Idempotency-Key whose write committed but whose answer was never stored", () => {
  it("a retry of a create answers 201 with the record it made, replayed, and makes nothing twice", async () => {
    const body = { email: "lost-answer@example.com", first_name: "Lost" }
    const made = await writeAndStop("lost-1", "POST", "/v1/contacts", body, (engine) => engine.contacts.create(ctx, body))

    const retry = await host.call("POST", "/v1/contacts", { body, headers: { "idempotency-key": "lost-1" } })
    expect(retry.status, retry.text).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.body.id).toBe(made.data["id"])
    expect(retry.headers.get("location")).toBe(`/v1/contacts/${made.data["id"]}`)
    const found = await host.call("GET", "/v1/contacts?search=lost-answer")
    expect(found.body.data).toHaveLength(1)

    // Once answered, the stored answer replays as before; another body is still a conflict.
    expect((await host.call("POST", "/v1/contacts", { body, headers: { "idempotency-key": "lost-1" } })).status).toBe(201)
    const other = await host.call("POST", "/v1/contacts", { body: { email: "x@example.com" }, headers: { "idempotency-key": "lost-1" } })
    expect(errorOf(other).code).toBe("idempotency_conflict")
  })

  it("a retry of a deal create finds the deal, and one of a restore answers the restored record", async () => {
    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const body = { name: "Lost deal", pipeline_id: pipeline.id }
    const made = await writeAndStop("lost-2", "POST", "/v1/deals", body, (engine) => engine.deals.create(ctx, body))
    const retry = await host.call("POST", "/v1/deals", { body, headers: { "idempotency-key": "lost-2" } })
    expect(retry.status, retry.text).toBe(201)
    expect(retry.body.id).toBe(made.data["id"])
    expect((await host.call("GET", "/v1/deals?limit=100")).body.data.filter((d: { name: string }) => d.name === "Lost deal")).toHaveLength(1)

    const contact = await host.call("POST", "/v1/contacts", { body: { email: "restore-lost@example.com" } })
    expect((await host.call("DELETE", `/v1/contacts/${contact.body.id}`)).status).toBe(204)
    const path = `/v1/contacts/${contact.body.id}/restore`
    await writeAndStop("lost-3", "POST", path, null, (engine) => engine.contacts.restore(ctx, contact.body.id))
    const restored = await host.call("POST", path, { headers: { "idempotency-key": "lost-3" } })
    expect(restored.status, restored.text).toBe(200)
    expect(restored.headers.get("idempotent-replayed")).toBe("true")
    expect(restored.body.id).toBe(contact.body.id)
  })

  it("without a way to read the answer again (a custom field), the retry is refused, not applied twice", async () => {
    const body = { object: "contact", key: "lost_field", label: "Lost", type: "text" }
    await writeAndStop("lost-4", "POST", "/v1/custom-fields", body, (engine) => engine.customFields.create(ctx, body))
    const retry = await host.call("POST", "/v1/custom-fields", { body, headers: { "idempotency-key": "lost-4" } })
    expect(retry.status, retry.text).toBe(409)
    expect(errorOf(retry).code).toBe("idempotency_conflict")
  })
})
