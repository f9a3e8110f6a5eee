import type { JsonObject } from "../json.js"

export interface ScheduleDelivery {
  readonly type: "ScheduleDelivery"
  readonly id: string
  readonly at: string
  readonly webhookId: string
  readonly eventId: string
  readonly eventType: string
  readonly eventStreamId: string
  readonly eventVersion: number
  readonly eventCreatedAt: string
  /** From `payloadDataFor`, or copied from the delivery being replayed. */
  readonly payloadData: JsonObject
  readonly replayOf: string | null
  /**
   * The event's position in the log when it is already known (a replay, a recovery). The outbox
   * schedules in the event's own commit, before the position exists; the queue's claim fills it in.
   */
  readonly sequence?: number
}

/**
 * The outcome of one POST. `at` is when the attempt was made: its `attempted_at` and the origin of
 * the next delay.
 */
export interface RecordAttempt {
  readonly type: "RecordAttempt"
  readonly id: string
  readonly at: string
  readonly statusCode: number | null
  readonly durationMs: number
  readonly error: string | null
  /** The `Retry-After` of the answer in seconds, when it had one. */
  readonly retryAfterSeconds: number | null
  /** Uniform in [-1, 1], drawn by the engine: deciders draw no random numbers. */
  readonly jitter: number
  /** Delays in milliseconds before retry 1, 2, …; the delivery gets `schedule.length + 1` attempts. */
  readonly schedule: ReadonlyArray<number>
}

export interface CancelDelivery {
  readonly type: "CancelDelivery"
  readonly id: string
  readonly at: string
}

export type DeliveryCommand = ScheduleDelivery | RecordAttempt | CancelDelivery
