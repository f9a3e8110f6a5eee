import { describe, expect, it } from "@effect/vitest"
import type { Projected } from "../decider.js"
import type { WebhookEvent } from "./events.js"
import { projectWebhook, subscribesTo, webhookView } from "./projection.js"

const fold = (events: ReadonlyArray<WebhookEvent>): Projected | null => events.reduce<Projected | null>(projectWebhook, null)

const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const t2 = "2026-01-03T00:00:00.000Z"
const created: WebhookEvent = {
  type: "webhook.created",
  data: { id: "wh_1", url: "https://hooks.example.com/in", events: ["deal.created"], secret: "s3cr3t-value", at: t0 }
}

describe("projectWebhook", () => {
  it("builds the document, secret included", () => {
    expect(fold([created])).toEqual({
      data: {
        id: "wh_1",
        url: "https://hooks.example.com/in",
        events: ["deal.created"],
        status: "active",
        has_secret: true,
        secret: "s3cr3t-value",
        created_at: t0,
        updated_at: t0
      },
      deletedAt: null
    })
  })

  it("applies changes and follows the secret in has_secret", () => {
    const doc = fold([created, { type: "webhook.updated", data: { changed: { secret: null, events: ["*"] }, at: t1 } }])
    expect(doc?.data).toMatchObject({ events: ["*"], secret: null, has_secret: false, updated_at: t1, created_at: t0 })
    const url = fold([created, { type: "webhook.updated", data: { changed: { url: "https://b.example.com" }, at: t1 } }])
    expect(url?.data).toMatchObject({ url: "https://b.example.com", has_secret: true })
  })

  it("turns failed and active again", () => {
    const failed = fold([created, { type: "webhook.failed", data: { reason: "gone", at: t1 } }])
    expect(failed?.data).toMatchObject({ status: "failed", updated_at: t1 })
    const active = failed && projectWebhook(failed, { type: "webhook.reactivated", data: { at: t2 } })
    expect(active?.data).toMatchObject({ status: "active", updated_at: t2 })
  })

  it("drops the document on delete", () => {
    expect(fold([created, { type: "webhook.deleted", data: { at: t1 } }])).toBeNull()
  })
})

describe("webhookView", () => {
  const data = fold([created])?.data ?? {}

  it("never shows the secret", () => {
    expect(webhookView(data)).toEqual({
      id: "wh_1",
      url: "https://hooks.example.com/in",
      events: ["deal.created"],
      status: "active",
      has_secret: true,
      recovery: null,
      created_at: t0,
      updated_at: t0
    })
  })

  it("puts last_delivery_at in its place when given", () => {
    expect(Object.keys(webhookView(data, null))).toEqual([
      "id",
      "url",
      "events",
      "status",
      "last_delivery_at",
      "has_secret",
      "recovery",
      "created_at",
      "updated_at"
    ])
    expect(webhookView(data, t2)["last_delivery_at"]).toBe(t2)
  })
})

describe("a recovery in the document", () => {
  it("is named while it runs, shown by the view, and gone when it ends", () => {
    const started: WebhookEvent = { type: "webhook.recovery_started", data: { job_id: "rcv_1", since: t0, at: t1 } }
    const ended: WebhookEvent = { type: "webhook.recovery_ended", data: { job_id: "rcv_1", at: t2 } }
    const running = fold([created, started])!.data
    expect(running["recovery"]).toEqual({ id: "rcv_1", since: t0 })
    expect(webhookView(running)["recovery"]).toEqual({ id: "rcv_1", since: t0 })
    const after = fold([created, started, ended])!.data
    expect(after).not.toHaveProperty("recovery")
    expect(after["updated_at"]).toBe(t2)
    expect(webhookView(after)["recovery"]).toBeNull()
  })
})

describe("subscribesTo", () => {
  const data = fold([created])?.data ?? {}

  it("matches the named events of an active webhook", () => {
    expect(subscribesTo(data, "deal.created")).toBe(true)
    expect(subscribesTo(data, "deal.updated")).toBe(false)
  })

  it("matches everything with the wildcard", () => {
    expect(subscribesTo({ ...data, events: ["*"] }, "contact.deleted")).toBe(true)
  })

  it("matches nothing while failed", () => {
    expect(subscribesTo({ ...data, status: "failed" }, "deal.created")).toBe(false)
    expect(subscribesTo({ ...data, events: ["*"], status: "failed" }, "deal.created")).toBe(false)
  })
})
