import { describe, expect, it } from "vitest"
import { hostFor, STORAGES } from "../http/client.js"
import { as, receiverForTest, register, WEBHOOK_API_KEYS, workspaces } from "./support.js"

/**
 * Issue 17: "a delivery's payload and the feed's event for the same event id are byte-for-byte the
 * same JSON", also once what the payload showed has changed since (a deal naming the contact later,
 * a custom field deleted): both show the record as it was when the event was committed.
 */
describe.each(STORAGES)("webhooks and the change feed on %s storage", { timeout: 90_000 }, (storage) => {
  const host = hostFor(storage, { apiKeys: WEBHOOK_API_KEYS, webhooks: { allowInsecure: true } })
  const workspace = workspaces()

  it("send and hand out the same bytes for every event", async () => {
    const api = as(host, workspace())
    const ok = async (method: string, path: string, body?: unknown) => {
      const answer = await api.call(method, path, body === undefined ? {} : { body })
      expect(answer.status, answer.text).toBeLessThan(300)
      return answer.body
    }
    const receiver = await receiverForTest()
    await register(api, receiver.url)
    await ok("POST", "/v1/custom-fields", { object: "contact", key: "tier", label: "Tier", type: "text" })
    const contact = await ok("POST", "/v1/contacts", { email: "same.bytes@example.com", first_name: "Ünïcode ✓", tier: "gold" })
    await ok("PATCH", `/v1/contacts/${contact.id}`, { title: 'Head of "quotes"', tier: "silver" })
    const pipeline = (await ok("GET", "/v1/pipelines")).data[0]
    const deal = await ok("POST", "/v1/deals", { name: "Bytes", pipeline_id: pipeline.id, contact_ids: [contact.id], value: 1234.5 })
    await ok("PUT", `/v1/deals/${deal.id}/stage`, { stage_id: pipeline.stages[1].id, reason: "went well" })
    await ok("PATCH", `/v1/deals/${deal.id}`, { value: 99.99 })
    await ok("DELETE", `/v1/contacts/${contact.id}`)
    await ok("POST", `/v1/contacts/${contact.id}/restore`)
    await ok("DELETE", `/v1/deals/${deal.id}`)
    await ok("POST", `/v1/deals/${deal.id}/restore`)
    // What the earlier payloads showed changes now; neither side may show the change.
    await ok("DELETE", "/v1/custom-fields/contact/tier")
    const count = 9
    await receiver.waitFor((received) => received.length >= count, `${count} deliveries`)

    const page = await api.call("GET", "/v1/events?limit=1000")
    expect(page.status, page.text).toBe(200)
    const inFeed = new Map((page.body.data as Array<Record<string, any>>).map((event) => [event.id as string, event]))
    const sent = receiver.received.map((request) => request.rawBody.toString("utf8"))
    expect(sent).toHaveLength(count)
    for (const body of sent) {
      const id = JSON.parse(body).id as string
      // The event read alone: its whole answer is the delivery's body.
      const one = await api.call("GET", `/v1/events/${id}`)
      expect(one.status, one.text).toBe(200)
      expect(one.text).toBe(body)
      // In a page, the same object serialises to the same bytes.
      expect(JSON.stringify(inFeed.get(id))).toBe(body)
    }
    const first = JSON.parse(sent.find((body) => JSON.parse(body).type === "contact.created")!)
    expect(first.data.contact).toMatchObject({ tier: "gold", deal_ids: [] })
  })
})
