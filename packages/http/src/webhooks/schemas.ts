import { WEBHOOK_TEST_EVENT } from "@dealstream/core"
import { Schema } from "effect"
import { exampleId, nullable, Timestamp } from "../documented.js"

const url = Schema.String.annotate({
  description:
    "An https URL whose host resolves only to public addresses (checked at registration and again on " +
    "every connection). Plain http and private targets only on a host started with DEALSTREAM_ALLOW_INSECURE_WEBHOOKS=1."
})

const secret = Schema.String.annotate({
  description:
    "Signing secret, 8 to 512 visible ASCII characters. Write-only: never returned, only has_secret. " +
    "With a secret, every request carries webhook-signature and X-Service-Signature (Standard Webhooks v1). " +
    "A secret of the form whsec_<base64> (Standard Webhooks) signs with its decoded bytes, which must be 24 to 64, " +
    "so new Webhook(secret) in a Standard Webhooks library's default mode verifies; any other secret signs with its " +
    'characters as bytes (format: "raw" in those libraries).',
  examples: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]
})

export const RecoverInput = Schema.Struct({
  since: Timestamp.annotate({ description: "Events recorded at or after this instant are recovered." })
}).annotate({ identifier: "RecoverInput" })

export const RecoveryJob = Schema.Struct({
  id: exampleId("rcv"),
  webhook_id: exampleId("wh"),
  since: Timestamp,
  status: Schema.Literals(["running", "done", "failed"]).annotate({
    description: "failed when the webhook turned failed while it ran (reactivate it and recover again)."
  }),
  scheduled: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Deliveries scheduled so far." }),
  skipped: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
    description: "Events since `since` left alone so far: already delivered or pending for this webhook, or purged."
  }),
  created_at: Timestamp,
  finished_at: nullable(Timestamp, "When it finished; null while it runs.")
}).annotate({ identifier: "RecoveryJob" })

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A delivery's states, as the engine names them (and its delivery list filters by them). */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "cancelled"] as const

export const DeliveryAttempt = Schema.Struct({
  attempted_at: Timestamp,
  status_code: nullable(Schema.Int, "The HTTP status of the answer; null when none came (see error)."),
  duration_ms: Count,
  error: nullable(Schema.String, "Why no answer came: timeout, refused connection, TLS, non-public target, …")
}).annotate({ identifier: "DeliveryAttempt" })

export const Delivery = Schema.Struct({
  id: exampleId("dlv"),
  webhook_id: exampleId("wh"),
  event_id: exampleId("evt").annotate({ description: "Also the webhook-id header: the same on every retry and replay." }),
  event_type: Schema.String.annotate({ examples: ["deal.created"] }),
  status: Schema.Literals(DELIVERY_STATUSES),
  attempt_count: Count,
  next_attempt_at: nullable(Timestamp, "When the next attempt is due, while pending."),
  last_attempt_at: nullable(Timestamp, "When it was last attempted."),
  last_status_code: nullable(Schema.Int, "The last answer's HTTP status."),
  last_error: nullable(Schema.String, "The last attempt's error, when it got no answer."),
  replay_of: nullable(Schema.String, "The delivery this one replays."),
  created_at: Timestamp,
  attempts: Schema.optionalKey(
    Schema.Array(DeliveryAttempt).annotate({
      description: "Every attempt, oldest first (on the single-delivery GET only)."
    })
  )
}).annotate({ identifier: "Delivery" })

export const WebhookTestAttempt = Schema.Struct({
  status_code: nullable(Schema.Int, "The HTTP status of the answer, whatever it is; null when none came (see error)."),
  duration_ms: Count,
  error: nullable(Schema.String, "Why no answer came: timeout, refused connection, TLS, non-public target, …; null when one did.")
}).annotate({
  identifier: "WebhookTestAttempt",
  description: "The test's one attempt, as a delivery's attempt is recorded (but this one is recorded nowhere)."
})

/**
 * The schemas that name the event types a webhook may subscribe to (`eventTypes`: the served record
 * types', core's recordTypeSet), made once per API: each is a named component of its document.
 */
export const webhookSchemas = (eventTypes: ReadonlyArray<string>) => {
  const EventName = Schema.String.annotate({
    description: `One of ${eventTypes.join(", ")}, or "*" alone for every event (including ones added later).`,
    examples: ["deal.stage_changed"]
  })

  const events = Schema.Array(EventName).annotate({
    description: 'A non-empty list of event names, or ["*"]. An unknown name is 400 at events[i].'
  })

  const WebhookInput = Schema.Struct({
    url,
    events,
    secret: Schema.optionalKey(Schema.NullOr(secret))
  }).annotate({ identifier: "WebhookInput" })

  const WebhookPatch = Schema.Struct({
    url: Schema.optionalKey(url),
    events: Schema.optionalKey(events),
    secret: Schema.optionalKey(Schema.NullOr(secret).annotate({ description: "null removes the secret: requests go unsigned." })),
    previous_secret_expires_in: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 604800 })).annotate({
        description:
          "Rotation: with a new secret, the one it replaces stays valid for this many seconds (at most 7 days). " +
          "Meanwhile webhook-signature carries both signatures, space-separated, the new one first " +
          "(v1,<new> v1,<old>), and X-Service-Signature the new one. Each attempt decides by its own timestamp. " +
          "Only the latest replaced secret is kept: a second rotation during an overlap ends the first one's."
      })
    ),
    recover_since: Schema.optionalKey(
      Timestamp.annotate({
        description:
          "Starts a recovery of the events recorded since then (see POST /v1/webhooks/{id}/recover), in the same " +
          'commit as the other changes; with status "active" it reactivates a failed webhook and recovers what it missed ' +
          "in one step. The running job's id is in the webhook's recovery."
      })
    ),
    status: Schema.optionalKey(
      Schema.Literal("active").annotate({
        description: "Reactivates a failed webhook; it receives new events again (past ones can be replayed)."
      })
    )
  }).annotate({
    identifier: "WebhookPatch",
    description: "Only the keys present change. A delivery in progress is not interrupted; the next attempt uses the new settings."
  })

  const Webhook = Schema.Struct({
    id: exampleId("wh"),
    url,
    events: Schema.Array(EventName),
    status: Schema.Literals(["active", "failed"]).annotate({
      description: "failed after a delivery exhausted its retries or an answer was 410 Gone: no new deliveries until reactivated."
    }),
    last_delivery_at: nullable(Timestamp, "When a delivery to this webhook was last attempted."),
    has_secret: Schema.Boolean,
    recovery: Schema.NullOr(Schema.Struct({ id: exampleId("rcv"), since: Timestamp })).annotate({
      description: "The recovery job running for this webhook (read it at /v1/webhooks/{id}/recoveries/{job_id}); null when none runs."
    }),
    created_at: Timestamp,
    updated_at: Timestamp
  }).annotate({ identifier: "Webhook" })

  const WebhookEventType = Schema.Struct({
    type: Schema.Literals([...eventTypes, WEBHOOK_TEST_EVENT]).annotate({ examples: ["deal.stage_changed"] }),
    description: Schema.String,
    schema: Schema.Record(Schema.String, Schema.Unknown).annotate({
      description: "JSON Schema (draft 2020-12) of the payload's `data` for this type, self-contained (no $ref)."
    })
  }).annotate({ identifier: "WebhookEventType" })

  return { WebhookInput, WebhookPatch, Webhook, WebhookEventType }
}
