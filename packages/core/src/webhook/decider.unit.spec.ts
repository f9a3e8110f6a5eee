import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import { webhookDecider } from "./decider.js"
import type { WebhookEvent } from "./events.js"

const given = DeciderSpecification.for(webhookDecider)

const id = "wh_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-02T00:00:00.000Z"
const t2 = "2026-01-03T00:00:00.000Z"
const url = "https://hooks.example.com/in"
const created: WebhookEvent = {
  type: "webhook.created",
  data: { id, url, events: ["deal.created", "deal.stage_changed"], secret: "s3cr3t-value", at: t0 }
}
const failed: WebhookEvent = { type: "webhook.failed", data: { reason: "exhausted", at: t1 } }
const deleted: WebhookEvent = { type: "webhook.deleted", data: { at: t1 } }

describe("webhookDecider", () => {
  describe("CreateWebhook", () => {
    it("records the webhook with its secret", () => {
      given([])
        .when({
          type: "CreateWebhook",
          id,
          at: t0,
          url,
          events: ["deal.created", "deal.stage_changed"],
          secret: "s3cr3t-value"
        })
        .then([created])
    })
    it("refuses an id that is already taken, even by a deleted webhook", () => {
      const create = { type: "CreateWebhook", id, at: t1, url, events: ["*"], secret: null } as const
      given([created]).when(create).thenFails("Conflict")
      given([created, deleted]).when(create).thenFails("Conflict")
    })
  })

  describe("UpdateWebhook", () => {
    it("records only the fields whose value changes", () => {
      given([created])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { url, events: ["*"], secret: null } })
        .then([{ type: "webhook.updated", data: { changed: { events: ["*"], secret: null }, at: t2 } }])
    })
    it("records nothing when nothing changes, reordered events included", () => {
      given([created])
        .when({
          type: "UpdateWebhook",
          id,
          at: t2,
          fields: { url, events: ["deal.stage_changed", "deal.created"], secret: "s3cr3t-value" }
        })
        .thenNothingHappens()
      given([created]).when({ type: "UpdateWebhook", id, at: t2, fields: {} }).thenNothingHappens()
    })
    it("sees a changed secret after an earlier update", () => {
      const removed: WebhookEvent = { type: "webhook.updated", data: { changed: { secret: null }, at: t1 } }
      given([created, removed])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { secret: null } })
        .thenNothingHappens()
      given([created, removed])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { secret: "s3cr3t-value" } })
        .then([{ type: "webhook.updated", data: { changed: { secret: "s3cr3t-value" }, at: t2 } }])
    })
    it("marks a whsec_ secret as signed with its decoded bytes, and a raw one after it as not", () => {
      const standard = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
      given([])
        .when({ type: "CreateWebhook", id, at: t0, url, events: ["*"], secret: standard })
        .then([{ type: "webhook.created", data: { id, url, events: ["*"], secret: standard, secret_standard: true, at: t0 } }])
      const toStandard: WebhookEvent = { type: "webhook.updated", data: { changed: { secret: standard, secret_standard: true }, at: t1 } }
      given([created])
        .when({ type: "UpdateWebhook", id, at: t1, fields: { secret: standard } })
        .then([toStandard])
      // Rotating away from it keeps the old one in its form for the overlap.
      given([created, toStandard])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { secret: "plain-secret-2", previous_secret_expires_in: 60 } })
        .then([
          {
            type: "webhook.updated",
            data: {
              changed: {
                secret: "plain-secret-2",
                previous_secret: { secret: standard, secret_standard: true, expires_at: "2026-01-03T00:01:00.000Z" }
              },
              at: t2
            }
          }
        ])
    })
    it("keeps the replaced secret for the overlap, counted from the command's time", () => {
      given([created])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { secret: "s3cr3t-value-2", previous_secret_expires_in: 604800 } })
        .then([
          {
            type: "webhook.updated",
            data: {
              changed: { secret: "s3cr3t-value-2", previous_secret: { secret: "s3cr3t-value", expires_at: "2026-01-10T00:00:00.000Z" } },
              at: t2
            }
          }
        ])
    })
    it("has no overlap of zero seconds, of no secret, or of the same secret", () => {
      given([created])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { secret: "s3cr3t-value-2", previous_secret_expires_in: 0 } })
        .then([{ type: "webhook.updated", data: { changed: { secret: "s3cr3t-value-2" }, at: t2 } }])
      const removed: WebhookEvent = { type: "webhook.updated", data: { changed: { secret: null }, at: t1 } }
      given([created, removed])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { secret: "s3cr3t-value-2", previous_secret_expires_in: 60 } })
        .then([{ type: "webhook.updated", data: { changed: { secret: "s3cr3t-value-2" }, at: t2 } }])
      given([created])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { secret: "s3cr3t-value", previous_secret_expires_in: 60 } })
        .thenNothingHappens()
    })
    it("reactivates a failed webhook, after the changes", () => {
      given([created, failed])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { url: "https://other.example.com", status: "active" } })
        .then([
          { type: "webhook.updated", data: { changed: { url: "https://other.example.com" }, at: t2 } },
          { type: "webhook.reactivated", data: { at: t2 } }
        ])
    })
    it("records nothing for status active on an active webhook", () => {
      given([created])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { status: "active" } })
        .thenNothingHappens()
      const reactivated: WebhookEvent = { type: "webhook.reactivated", data: { at: t2 } }
      given([created, failed, reactivated])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { status: "active" } })
        .thenNothingHappens()
    })
    it("keeps a failed webhook failed when only its settings change", () => {
      given([created, failed])
        .when({ type: "UpdateWebhook", id, at: t2, fields: { events: ["*"] } })
        .then([{ type: "webhook.updated", data: { changed: { events: ["*"] }, at: t2 } }])
    })
    it("is not found on an absent or deleted webhook", () => {
      const update = { type: "UpdateWebhook", id, at: t2, fields: { events: ["*"] } } as const
      given([])
        .when(update)
        .thenFails("NotFound", (e) => expect(e.resource).toBe("webhook"))
      given([created, deleted]).when(update).thenFails("NotFound")
    })
  })

  describe("MarkWebhookFailed", () => {
    it("fails an active webhook with the reason", () => {
      given([created])
        .when({ type: "MarkWebhookFailed", id, at: t1, reason: "gone" })
        .then([{ type: "webhook.failed", data: { reason: "gone", at: t1 } }])
    })
    it("records nothing on a webhook that already failed", () => {
      given([created, failed]).when({ type: "MarkWebhookFailed", id, at: t2, reason: "gone" }).thenNothingHappens()
    })
    it("fails a reactivated webhook again", () => {
      const reactivated: WebhookEvent = { type: "webhook.reactivated", data: { at: t1 } }
      given([created, failed, reactivated])
        .when({ type: "MarkWebhookFailed", id, at: t2, reason: "exhausted" })
        .then([{ type: "webhook.failed", data: { reason: "exhausted", at: t2 } }])
    })
    it("is not found on an absent or deleted webhook", () => {
      given([]).when({ type: "MarkWebhookFailed", id, at: t1, reason: "gone" }).thenFails("NotFound")
      given([created, deleted]).when({ type: "MarkWebhookFailed", id, at: t2, reason: "gone" }).thenFails("NotFound")
    })
  })

  describe("DeleteWebhook", () => {
    it("deletes an active or a failed webhook", () => {
      given([created]).when({ type: "DeleteWebhook", id, at: t1 }).then([deleted])
      given([created, failed]).when({ type: "DeleteWebhook", id, at: t1 }).then([deleted])
    })
    it("is not found when already deleted or absent", () => {
      given([created, deleted]).when({ type: "DeleteWebhook", id, at: t2 }).thenFails("NotFound")
      given([]).when({ type: "DeleteWebhook", id, at: t2 }).thenFails("NotFound")
    })
  })
})

describe("webhook recoveries", () => {
  const since = "2025-12-31T00:00:00.000Z"
  const recovering: WebhookEvent = { type: "webhook.recovery_started", data: { job_id: "rcv_1", since, at: t1 } }
  it("starts one at a time, on an active webhook only", () => {
    const start = { type: "StartWebhookRecovery", id, at: t1, recoveryId: "rcv_1", since } as const
    given([created]).when(start).then([recovering])
    given([created, recovering])
      .when({ ...start, recoveryId: "rcv_2" })
      .thenFails("Conflict")
    given([created, failed]).when(start).thenFails("Conflict")
    given([created, deleted]).when(start).thenFails("NotFound")
    const ended: WebhookEvent = { type: "webhook.recovery_ended", data: { job_id: "rcv_1", at: t2 } }
    given([created, recovering, ended])
      .when({ ...start, recoveryId: "rcv_2" })
      .then([{ type: "webhook.recovery_started", data: { job_id: "rcv_2", since, at: t1 } }])
  })
  it("ends only the job it names", () => {
    given([created, recovering])
      .when({ type: "EndWebhookRecovery", id, at: t2, recoveryId: "rcv_1" })
      .then([{ type: "webhook.recovery_ended", data: { job_id: "rcv_1", at: t2 } }])
    given([created, recovering]).when({ type: "EndWebhookRecovery", id, at: t2, recoveryId: "rcv_9" }).thenNothingHappens()
  })
  it("reactivates and starts a recovery in one PATCH, after the reactivation", () => {
    given([created, failed])
      .when({ type: "UpdateWebhook", id, at: t2, fields: { status: "active", recover_since: since }, recoveryId: "rcv_3" })
      .then([
        { type: "webhook.reactivated", data: { at: t2 } },
        { type: "webhook.recovery_started", data: { job_id: "rcv_3", since, at: t2 } }
      ])
    given([created, failed])
      .when({ type: "UpdateWebhook", id, at: t2, fields: { recover_since: since }, recoveryId: "rcv_3" })
      .thenFails("Conflict")
  })
})
