import { Api, type RunningServer, startServer } from "@dealstream/http"
import { HttpApi } from "effect/http-api"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { DealstreamError } from "./DealstreamError.js"
import { Dealstream } from "./makeClient.js"
import { createClient } from "./promise.js"

// The client against a real host over a socket: the same HttpApi definition on both sides.
const apiKey = "client-key-0123456789"
let host: RunningServer
beforeAll(async () => {
  host = await startServer({ port: 0, host: "127.0.0.1", storage: "memory", apiKeys: `acme:${apiKey}`, log: false })
})
afterAll(() => host.close())

describe("@dealstream/client", () => {
  it("works from Effect: typed operations, decoded records, failures as DealstreamError", async () => {
    const program = Effect.gen(function* () {
      const crm = yield* Dealstream
      const contact = yield* crm.contacts.create({ payload: { email: "ada@example.com", first_name: "Ada" }, headers: {} })
      const sales = (yield* crm.pipelines.list({})).data[0]!
      const deal = (yield* crm.deals.create({
        payload: { name: "Pilot", pipeline_id: sales.id, value: 5000, currency: "EUR" },
        headers: {}
      })).body
      const moved = yield* crm.deals.moveStage({
        params: { id: deal["id"] as string },
        payload: { stage_id: sales.stages[1]!.id, reason: "demo" },
        headers: {}
      })
      const missing = yield* Effect.flip(crm.contacts.get({ params: { id: "con_nobody" }, query: {} }))
      return { contact, deal, moved: moved.body, etag: moved.headers.etag, missing }
    })
    const { contact, deal, etag, missing, moved } = await Effect.runPromise(
      program.pipe(Effect.provide(Dealstream.layer({ baseUrl: host.url, apiKey })))
    )
    expect(contact.body).toMatchObject({ email: "ada@example.com", first_name: "Ada" })
    expect(contact.headers).toEqual({ location: `/v1/contacts/${contact.body["id"]}`, etag: '"1"' })
    expect(deal).toMatchObject({ name: "Pilot", value: 5000, currency: "EUR", stage_id: expect.stringMatching(/^stage_/) })
    expect(moved.timeline_entry).toMatchObject({ deal_id: deal["id"], from_stage_id: deal["stage_id"], reason: "demo" })
    expect(etag).toBe('"2"')
    expect(missing).toBeInstanceOf(DealstreamError)
    expect(missing).toMatchObject({ status: 404, code: "not_found" })
  })

  it("has every operation the host serves, by group", async () => {
    const crm = await createClient({ baseUrl: host.url, apiKey })
    const served: Array<string> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint, group }) => served.push(`${group.identifier}.${endpoint.identifier}`)
    })
    expect(served.length).toBeGreaterThan(30)
    const operations = crm as unknown as Record<string, Record<string, unknown>>
    expect(served.filter((name) => typeof operations[name.split(".")[0]!]?.[name.split(".")[1]!] !== "function")).toEqual([])
    const health = await crm.system.health({})
    expect(health).toMatchObject({ status: "ok" })
  })

  it("works with Promises, rejecting with the host's error, stage rules' included", async () => {
    const crm = await createClient({ baseUrl: host.url, apiKey })
    const sales = (await crm.pipelines.list({})).data[0]!
    const [lead, qualified] = sales.stages
    await crm.pipelines.update({
      params: { id: sales.id },
      payload: {
        stages: sales.stages.map(({ id, name }) => (id === lead!.id ? { id, name, next_stage_ids: [qualified!.id] } : { id, name }))
      },
      headers: {}
    })
    const deal = (await crm.deals.create({ payload: { name: "Rules", pipeline_id: sales.id }, headers: {} })).body
    const refused = await crm.deals
      .moveStage({ params: { id: deal["id"] as string }, payload: { stage_id: sales.stages[4]!.id }, headers: {} })
      .then(
        () => null,
        (error: unknown) => error
      )
    expect(refused).toBeInstanceOf(DealstreamError)
    expect(refused).toMatchObject({ status: 400, code: "validation_error", details: [{ path: "stage_id", id: lead!.id }] })
    const wrongKey = await createClient({ baseUrl: host.url, apiKey: "not-a-key" })
    await expect(wrongKey.contacts.list({ query: {} })).rejects.toMatchObject({ status: 401, code: "unauthorized" })
  })
})
