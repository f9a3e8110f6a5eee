import { Engine, EngineLive, IdsLive, type RequestContext } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { createHash } from "node:crypto"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { noWebhookSending } from "../support/engine.js"
import { testDatabase } from "../support/pg.js"
import { type Receiver, startReceiver } from "../webhooks/receiver.js"
import { errorOf, type Host, startHost } from "./client.js"

// A host that stopped after committing a POST made with an Idempotency-Key and before storing its
// answer: played here by a second engine on the same database, which commits the write under the
// key and then stops, as the host would have. The retry must find the write, not make it again.

/**
 * The request fingerprint as the contract describes it (README, "Idempotency-Key"): the method, the
 * path, and the SHA-256 (hex) of the body's canonical JSON, in which object keys are sorted and
 * there is no whitespace, so key order and spacing do not matter. Written here from that description
 * rather than imported from the host: the stopped host's record carries this value, and a host that
 * computes the fingerprint any other way answers the retry with a conflict, which fails the test.
 */
const contractFingerprint = (method: string, path: string, body: unknown): string => {
  const canonical = (value: unknown): string => {
    if (value === null || value === undefined) return "null"
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
    if (typeof value === "object") {
      const record = value as Record<string, unknown>
      const members = Object.keys(record)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      return `{${members.join(",")}}`
    }
    return JSON.stringify(value)
  }
  return `${method} ${path} ${createHash("sha256").update(canonical(body), "utf8").digest("hex")}`
}

const ctx: RequestContext = { workspaceId: "ws_a", requestId: null, actor: "stopped-host" }
const scope = Effect.runSync(Scope.make())
let url = ""
let host: Host
let receiver: Receiver

beforeAll(async () => {
  url = await Effect.runPromise(Scope.provide(testDatabase, scope))
  receiver = await startReceiver()
  host = await startHost({ storage: { postgres: url }, webhooks: { allowInsecure: true } })
})
afterAll(async () => {
  await host?.close()
  await receiver?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** What the stopped host did: the write, under the key, and nothing after it. */
const writeAndStop = <A>(
  key: string,
  method: string,
  path: string,
  body: unknown,
  /** `claimed`: the caller, under the key (RequestContext.idempotency), as the host makes it. */
  write: (engine: typeof Engine.Service, claimed: RequestContext) => Effect.Effect<A, unknown>
) =>
  Effect.runPromise(
    Effect.flatMap(Engine, (engine) =>
      write(engine, { ...ctx, idempotency: { key, fingerprint: contractFingerprint(method, path, body) } })
    ).pipe(Effect.provide(EngineLive.pipe(Layer.provide(PgStorage.layer(url)), Layer.provide(IdsLive), Layer.provide(noWebhookSending))))
  )

/** The same JSON with its keys in reverse order and spaced out: the fingerprint must not see a difference. */
const reordered = (body: Record<string, unknown>) =>
  `{ ${Object.keys(body)
    .reverse()
    .map((key) => `${JSON.stringify(key)} :  ${JSON.stringify(body[key])}`)
    .join(" ,\n ")} }`

describe("an Idempotency-Key whose write committed but whose answer was never stored", () => {
  it("a retry of a create answers 201 with the record it made, replayed, and makes nothing twice", async () => {
    const body = { email: "lost-answer@example.com", first_name: "Lost" }
    const made = await writeAndStop("lost-1", "POST", "/v1/contacts", body, (engine, claimed) => engine.contacts.create(claimed, body))

    const retry = await host.call("POST", "/v1/contacts", {
      raw: reordered(body),
      headers: { "content-type": "application/json", "idempotency-key": "lost-1" }
    })
    expect(retry.status, retry.text).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.body.id).toBe(made.data["id"])
    expect(retry.headers.get("location")).toBe(`/v1/contacts/${made.data["id"]}`)
    expect(retry.body).toEqual((await host.call("GET", `/v1/contacts/${made.data["id"]}`)).body)
    const found = await host.call("GET", "/v1/contacts?search=lost-answer")
    expect(found.body.data).toHaveLength(1)

    // Once answered, the stored answer replays as before; another body is still a conflict.
    const again = await host.call("POST", "/v1/contacts", { body, headers: { "idempotency-key": "lost-1" } })
    expect({ status: again.status, replayed: again.headers.get("idempotent-replayed"), body: again.body }).toEqual({
      status: 201,
      replayed: "true",
      body: retry.body
    })
    const other = await host.call("POST", "/v1/contacts", { body: { email: "x@example.com" }, headers: { "idempotency-key": "lost-1" } })
    expect(errorOf(other).code).toBe("idempotency_conflict")
  })

  it("a retry of a deal create finds the deal, replayed, and makes nothing twice", async () => {
    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const body = { name: "Lost deal", pipeline_id: pipeline.id, value: 700, currency: "EUR" }
    const made = await writeAndStop("lost-2", "POST", "/v1/deals", body, (engine, claimed) => engine.deals.create(claimed, body))
    const retry = await host.call("POST", "/v1/deals", {
      raw: reordered(body),
      headers: { "content-type": "application/json", "idempotency-key": "lost-2" }
    })
    expect(retry.status, retry.text).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.body.id).toBe(made.data["id"])
    expect(retry.body).toEqual((await host.call("GET", `/v1/deals/${made.data["id"]}`)).body)
    expect((await host.call("GET", "/v1/deals?limit=100")).body.data.filter((d: { name: string }) => d.name === "Lost deal")).toHaveLength(
      1
    )
  })

  it("a retry of a contact restore or a deal restore answers 200 with the restored record, replayed", async () => {
    const contact = await host.call("POST", "/v1/contacts", { body: { email: "restore-lost@example.com" } })
    expect((await host.call("DELETE", `/v1/contacts/${contact.body.id}`)).status).toBe(204)
    const contactPath = `/v1/contacts/${contact.body.id}/restore`
    await writeAndStop("lost-3", "POST", contactPath, null, (engine, claimed) => engine.contacts.restore(claimed, contact.body.id))
    const restoredContact = await host.call("POST", contactPath, { headers: { "idempotency-key": "lost-3" } })
    expect(restoredContact.status, restoredContact.text).toBe(200)
    expect(restoredContact.headers.get("idempotent-replayed")).toBe("true")
    expect(restoredContact.body).toEqual((await host.call("GET", `/v1/contacts/${contact.body.id}`)).body)

    const pipeline = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const deal = await host.call("POST", "/v1/deals", { body: { name: "Restored after a lost answer", pipeline_id: pipeline.id } })
    expect((await host.call("DELETE", `/v1/deals/${deal.body.id}`)).status).toBe(204)
    const dealPath = `/v1/deals/${deal.body.id}/restore`
    await writeAndStop("lost-5", "POST", dealPath, null, (engine, claimed) => engine.deals.restore(claimed, deal.body.id))
    const restoredDeal = await host.call("POST", dealPath, { headers: { "idempotency-key": "lost-5" } })
    expect(restoredDeal.status, restoredDeal.text).toBe(200)
    expect(restoredDeal.headers.get("idempotent-replayed")).toBe("true")
    const current = await host.call("GET", `/v1/deals/${deal.body.id}`)
    expect(current.status).toBe(200)
    expect(restoredDeal.body).toEqual(current.body)
    // Restored once: created, deleted, restored, and no second restore after it.
    expect(current.headers.get("etag")).toBe(`"${Number(JSON.parse(deal.headers.get("etag")!)) + 2}"`)
  })

  it("a retry of a delivery replay is refused (there is no answer to read again), never replayed twice", async () => {
    const webhook = await host.call("POST", "/v1/webhooks", { body: { url: `${receiver.url}/lost`, events: ["contact.created"] } })
    expect(webhook.status, webhook.text).toBe(201)
    await host.call("POST", "/v1/contacts", { body: { email: "replay-lost@example.com" } })
    const [original] = (await host.call("GET", `/v1/webhooks/${webhook.body.id}/deliveries`)).body.data
    expect(original).toBeDefined()
    const path = `/v1/webhooks/${webhook.body.id}/deliveries/${original.id}/replay`
    await writeAndStop("lost-6", "POST", path, null, (engine, claimed) => engine.webhooks.replay(claimed, webhook.body.id, original.id))

    for (let i = 0; i < 2; i++) {
      const retry = await host.call("POST", path, { headers: { "idempotency-key": "lost-6" } })
      expect(retry.status, retry.text).toBe(409)
      expect(errorOf(retry).code).toBe("idempotency_conflict")
      // The conflict of a write applied without its answer, not of a key used for another request.
      expect(errorOf(retry).message).toMatch(/answer was lost/)
    }
    const deliveries = (await host.call("GET", `/v1/webhooks/${webhook.body.id}/deliveries?limit=100`)).body.data
    expect(deliveries.filter((d: { replay_of: string | null }) => d.replay_of === original.id)).toHaveLength(1)
  })

  it("without a way to read the answer again (a custom field), the retry is refused, not applied twice", async () => {
    const body = { object: "contact", key: "lost_field", label: "Lost", type: "text" }
    await writeAndStop("lost-4", "POST", "/v1/custom-fields", body, (engine, claimed) => engine.customFields.create(claimed, body))
    const retry = await host.call("POST", "/v1/custom-fields", { body, headers: { "idempotency-key": "lost-4" } })
    expect(retry.status, retry.text).toBe(409)
    expect(errorOf(retry).code).toBe("idempotency_conflict")
    // The conflict of a write applied without its answer, not of a key used for another request.
    expect(errorOf(retry).message).toMatch(/answer was lost/)
    expect(
      (await host.call("GET", "/v1/custom-fields?object=contact")).body.data.filter((f: { key: string }) => f.key === "lost_field")
    ).toHaveLength(1)
  })
})
