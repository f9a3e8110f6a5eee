import { Context, type Effect, type Stream } from "effect"
import type { StorageUnavailable } from "../errors.js"
import type { StoredDocument } from "./documents.js"

/** What one host tells the workers of every host (PostgreSQL NOTIFY between hosts). */
export type QueueSignal =
  /** New deliveries were committed: wake up and claim. */
  | { readonly _tag: "Scheduled" }
  /** A webhook was deleted: abort any attempt in flight for it, now. */
  | { readonly _tag: "WebhookDeleted"; readonly webhookId: string }

export interface ClaimOptions {
  /** Deliveries with next_attempt_at at or before this instant are due. */
  readonly now: string
  readonly limit: number
  /** Who holds the lease (one id per worker process). */
  readonly owner: string
  /** The lease ends here; another worker may claim the delivery afterwards (at-least-once). */
  readonly leaseUntil: string
  /**
   * At most this many deliveries of one webhook in one claim, and none of the webhooks in
   * `skipWebhooks` (those already at their cap of requests in flight on this worker): one slow or
   * busy receiver cannot fill a claim, and the deliveries behind it for other webhooks are reached.
   */
  readonly perWebhook?: number
  readonly skipWebhooks?: ReadonlyArray<string>
}

/**
 * The delivery documents (collection "delivery", written by commits like every other document) seen as a
 * work queue. A delivery is claimable while its data has `status: "pending"`, its `next_attempt_at` is
 * due, and it holds no lease that is still running. Every commit that upserts a delivery document clears
 * its lease: recording an attempt, or cancelling, ends the claim.
 */
export interface DeliveryQueueService {
  /**
   * Leases up to `limit` due deliveries, earliest due first (ties in `sequence` order), so no two
   * live workers hold one at once. Each comes back with `sequence` in its data: the event's position
   * in the log, stored on the delivery by its first claim when scheduling did not know it.
   */
  readonly claim: (options: ClaimOptions) => Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable>
  /** Gives back the leases `owner` still holds (graceful shutdown), so other workers need not wait. */
  readonly release: (owner: string) => Effect.Effect<void, StorageUnavailable>
  /**
   * When the next pending delivery becomes claimable (its next_attempt_at, or its lease's end if that
   * is later), or null when none is pending. Workers sleep until then.
   */
  readonly nextDue: Effect.Effect<string | null, StorageUnavailable>
  /** Sends a signal to every host, this one included. */
  readonly signal: (signal: QueueSignal) => Effect.Effect<void, StorageUnavailable>
  /** The signals of every host, from the moment of subscription, for as long as the stream is consumed. */
  readonly signals: Stream.Stream<QueueSignal, StorageUnavailable>
}

export class DeliveryQueue extends Context.Service<DeliveryQueue, DeliveryQueueService>()("@dealstream/core/DeliveryQueue") {}
