import { describe, expect, it } from "@effect/vitest"
import type { ContactEvent } from "../contact/events.js"
import type { DealEvent } from "../deal/events.js"
import { deliveryPayload, payloadDataFor, testPayload } from "./payload.js"

const at = "2026-01-01T00:00:00.000Z"
const deal = { id: "deal_1", name: "Acme", stage_id: "stage_2" }
const contact = { id: "con_1", email: "ada@example.com" }

describe("deliveryPayload", () => {
  it("serialises its keys in the contract's order", () => {
    const payload = deliveryPayload({
      data: { deal },
      sequence: 1234,
      workspaceId: "ws_1",
      createdAt: at,
      eventType: "deal.created",
      eventId: "evt_1"
    })
    expect(JSON.stringify(payload)).toBe(
      `{"id":"evt_1","type":"deal.created","created_at":"${at}","workspace_id":"ws_1","sequence":1234,"data":{"deal":${JSON.stringify(deal)}}}`
    )
  })
})

describe("testPayload", () => {
  it("is webhook.test naming the webhook, at sequence 0: before every event of the log", () => {
    const payload = deliveryPayload(testPayload({ eventId: "evt_1", createdAt: at, workspaceId: "ws_1", webhookId: "wh_1" }))
    expect(JSON.stringify(payload)).toBe(
      `{"id":"evt_1","type":"webhook.test","created_at":"${at}","workspace_id":"ws_1","sequence":0,"data":{"webhook_id":"wh_1"}}`
    )
  })
})

describe("payloadDataFor", () => {
  it("carries the record on created and restored", () => {
    const created: DealEvent = { type: "deal.created", data: { id: "deal_1", fields: {}, at } }
    expect(payloadDataFor(created, deal)).toEqual({ deal })
    const restored: ContactEvent = { type: "contact.restored", data: { at } }
    expect(payloadDataFor(restored, contact)).toEqual({ contact })
    const contactCreated: ContactEvent = { type: "contact.created", data: { id: "con_1", fields: {}, at } }
    expect(payloadDataFor(contactCreated, contact)).toEqual({ contact })
  })

  it("names the changed fields on updated", () => {
    const updated: ContactEvent = { type: "contact.updated", data: { changed: { first_name: "Ada", industry: null }, at } }
    expect(payloadDataFor(updated, contact)).toEqual({ contact, changed_fields: ["first_name", "industry"] })
    const dealUpdated: DealEvent = { type: "deal.updated", data: { changed: { value: 10 }, at } }
    expect(payloadDataFor(dealUpdated, deal)).toEqual({ deal, changed_fields: ["value"] })
  })

  it("carries the timeline entry on stage_changed", () => {
    const moved: DealEvent = {
      type: "deal.stage_changed",
      data: {
        entry_id: "tle_1",
        from_pipeline_id: "pipe_1",
        to_pipeline_id: "pipe_1",
        from_stage_id: "stage_1",
        to_stage_id: "stage_2",
        reason: "demo done",
        at
      }
    }
    expect(payloadDataFor(moved, deal)).toEqual({
      deal,
      timeline_entry: {
        id: "tle_1",
        deal_id: "deal_1",
        from_stage_id: "stage_1",
        to_stage_id: "stage_2",
        from_status: null,
        to_status: null,
        reason: "demo done",
        changed_at: at
      }
    })
  })

  it("carries only the id on deleted", () => {
    expect(payloadDataFor({ type: "deal.deleted", data: { at } }, deal)).toEqual({ id: "deal_1" })
    expect(payloadDataFor({ type: "contact.deleted", data: { at } }, contact)).toEqual({ id: "con_1" })
  })

  it("has nothing for events no webhook subscribes to", () => {
    expect(payloadDataFor({ type: "contact.purged", data: { at } }, contact)).toBeNull()
    expect(payloadDataFor({ type: "webhook.created", data: { at } }, {})).toBeNull()
  })
})
