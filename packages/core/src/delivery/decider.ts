import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError } from "../errors.js"
import { Conflict, NotFound } from "../errors.js"
import type { DeliveryCommand } from "./commands.js"
import type { DeliveryEvent } from "./events.js"
import { judgeAttempt } from "./retry.js"

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled"

export type DeliveryState = { readonly status: "absent" } | { readonly status: DeliveryStatus; readonly attemptCount: number }

type Decision = Result.Result<ReadonlyArray<DeliveryEvent>, DomainError>

const notFound = (id: string): Decision => Result.fail(new NotFound({ resource: "delivery", id }))

const conflict = (id: string, message: string, detail: string): Decision =>
  Result.fail(new Conflict({ message, details: [{ path: "", message: detail, id }] }))

const decide = (command: DeliveryCommand, state: DeliveryState): Decision => {
  const { at, id } = command
  switch (command.type) {
    case "ScheduleDelivery":
      // Ids are fresh from the engine; a clash means a bug or a replayed command.
      return state.status === "absent"
        ? Result.succeed([
            {
              type: "delivery.scheduled",
              data: {
                id,
                webhook_id: command.webhookId,
                event_id: command.eventId,
                event_type: command.eventType,
                event_stream_id: command.eventStreamId,
                event_version: command.eventVersion,
                event_created_at: command.eventCreatedAt,
                payload_data: command.payloadData,
                replay_of: command.replayOf,
                ...(command.sequence === undefined ? {} : { sequence: command.sequence }),
                at
              }
            }
          ])
        : conflict(id, `delivery ${id} already exists`, "already exists")
    case "RecordAttempt": {
      if (state.status === "absent") return notFound(id)
      // The webhook was deleted (or the delivery settled) while the attempt was in flight.
      if (state.status !== "pending") {
        return conflict(id, `delivery ${id} is ${state.status}`, "is no longer pending")
      }
      const verdict = judgeAttempt({ ...command, attemptNumber: state.attemptCount + 1 })
      return Result.succeed([
        {
          type: "delivery.attempted",
          data: {
            attempt: {
              attempted_at: at,
              status_code: command.statusCode,
              duration_ms: command.durationMs,
              error: command.error
            },
            result: verdict.result,
            failure: verdict.failure,
            next_attempt_at: verdict.wait === null ? null : new Date(Date.parse(at) + verdict.wait).toISOString(),
            at
          }
        }
      ])
    }
    case "CancelDelivery":
      if (state.status === "absent") return notFound(id)
      // Cancelling what already settled changes nothing: success and failure are history.
      return Result.succeed(state.status === "pending" ? [{ type: "delivery.cancelled", data: { at } }] : [])
  }
}

const evolve = (state: DeliveryState, event: DeliveryEvent): DeliveryState => {
  switch (event.type) {
    case "delivery.scheduled":
      return { status: "pending", attemptCount: 0 }
    case "delivery.attempted": {
      const attemptCount = state.status === "absent" ? 1 : state.attemptCount + 1
      return { status: event.data.result === "retrying" ? "pending" : event.data.result, attemptCount }
    }
    case "delivery.cancelled":
      return state.status === "absent" ? state : { status: "cancelled", attemptCount: state.attemptCount }
  }
}

export const deliveryDecider: Decider<DeliveryCommand, DeliveryEvent, DeliveryState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
