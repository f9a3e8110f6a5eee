import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

export const RecoveryStarted = DomainEvent("recovery.started", {
  id: Schema.String,
  webhook_id: Schema.String,
  since: Schema.String,
  at: Schema.String
})
export type RecoveryStarted = typeof RecoveryStarted.Type

/** A place in the workspace's log, in the change feed's order (ChangeFeedPosition). */
export const RecoveryPosition = Schema.Struct({ transaction: Schema.String, sequence: Schema.Number })

/**
 * A walk's place as recorded: a feed position, or, in jobs recorded before the walk followed the
 * feed's order, a sequence (a number), which the job reads as not begun (decider.ts).
 */
const RecordedPosition = Schema.Union([RecoveryPosition, Schema.Number])

/** `scheduled` and `skipped` count this chunk's events; the job's totals are their sums. */
export const RecoveryProgressed = DomainEvent("recovery.progressed", {
  runner: Schema.String,
  until: RecordedPosition,
  position: RecordedPosition,
  scheduled: Schema.Number,
  skipped: Schema.Number,
  at: Schema.String
})
export type RecoveryProgressed = typeof RecoveryProgressed.Type

export const RecoveryFinished = DomainEvent("recovery.finished", {
  status: Schema.Literals(["done", "failed"]),
  reason: Schema.NullOr(Schema.String),
  at: Schema.String
})
export type RecoveryFinished = typeof RecoveryFinished.Type

export const RecoveryEvent = Schema.Union([RecoveryStarted, RecoveryProgressed, RecoveryFinished])
export type RecoveryEvent = typeof RecoveryEvent.Type
