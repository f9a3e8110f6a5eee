import { describe, expect, it } from "@effect/vitest"
import { prop } from "../testing/property.js"
import { Result } from "effect"
import * as fc from "fast-check"
import type { Projected } from "../decider.js"
import type { DeliveryCommand } from "./commands.js"
import { deliveryDecider } from "./decider.js"
import type { DeliveryEvent } from "./events.js"
import { projectDelivery } from "./projection.js"
import { DEFAULT_RETRY_SCHEDULE } from "./schedule.js"

const id = "dlv_1"
const start = Date.parse("2026-01-01T00:00:00.000Z")

type Step =
  | {
    readonly kind: "attempt"
    readonly statusCode: number | null
    readonly retryAfterSeconds: number | null
    readonly jitter: number
  }
  | { readonly kind: "cancel" }

const answer = fc.oneof(
  { arbitrary: fc.record({ statusCode: fc.integer({ min: 200, max: 299 }), retryAfterSeconds: fc.constant(null) }), weight: 1 },
  { arbitrary: fc.record({ statusCode: fc.constant(410), retryAfterSeconds: fc.constant(null) }), weight: 1 },
  {
    arbitrary: fc.record({
      statusCode: fc.constantFrom(429, 503),
      retryAfterSeconds: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null })
    }),
    weight: 3
  },
  {
    arbitrary: fc.record({
      statusCode: fc.constantFrom(500, 502, 404, 301, null),
      retryAfterSeconds: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null })
    }),
    weight: 6
  }
)
const jitter = fc.double({ min: -1, max: 1, noNaN: true })
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.tuple(answer, jitter).map(([a, j]): Step => ({ kind: "attempt", ...a, jitter: j })), weight: 12 },
  { arbitrary: fc.constant<Step>({ kind: "cancel" }), weight: 1 }
)
const schedule = fc.oneof(
  fc.constant(DEFAULT_RETRY_SCHEDULE),
  fc.array(fc.integer({ min: 1, max: 10_000_000 }), { minLength: 0, maxLength: 8 })
)

const stepSequence = fc.array(step, { maxLength: 60 })

interface Accepted {
  readonly step: Step
  readonly at: number
  readonly attemptNumber: number
  readonly event: DeliveryEvent
}

/** Runs the steps as a worker would: each attempt at the time the previous one asked for. */
const run = (delays: ReadonlyArray<number>, steps: ReadonlyArray<Step>) => {
  const scheduled: DeliveryEvent = {
    type: "delivery.scheduled",
    data: {
      id,
      webhook_id: "wh_1",
      event_id: "evt_1",
      event_type: "deal.updated",
      event_stream_id: "deal_1",
      event_version: 2,
      event_created_at: new Date(start).toISOString(),
      payload_data: {},
      replay_of: null,
      at: new Date(start).toISOString()
    }
  }
  let state = deliveryDecider.evolve(deliveryDecider.initialState, scheduled)
  let doc: Projected | null = projectDelivery(null, scheduled)
  let now = start
  let attempts = 0
  const accepted: Array<Accepted> = []
  const refused: Array<{ step: Step; status: string; tag: string }> = []
  for (const s of steps) {
    const at = new Date(now).toISOString()
    const command: DeliveryCommand = s.kind === "cancel"
      ? { type: "CancelDelivery", id, at }
      : { type: "RecordAttempt", id, at, durationMs: 50, error: null, schedule: delays, ...s }
    const result = deliveryDecider.decide(command, state)
    if (Result.isFailure(result)) {
      refused.push({ step: s, status: state.status, tag: result.failure._tag })
      continue
    }
    if (s.kind === "attempt") attempts++
    for (const event of result.success) {
      accepted.push({ step: s, at: now, attemptNumber: attempts, event })
      state = deliveryDecider.evolve(state, event)
      doc = projectDelivery(doc, event)
      if (event.type === "delivery.attempted" && event.data.next_attempt_at !== null) now = Date.parse(event.data.next_attempt_at)
    }
  }
  return { accepted, refused, state, doc }
}

const attemptsOf = (accepted: ReadonlyArray<Accepted>) =>
  accepted.flatMap((a) => a.event.type === "delivery.attempted" ? [{ ...a, data: a.event.data }] : [])

describe("delivery retries", () => {
  prop("never make more than schedule.length + 1 attempts", [schedule, stepSequence], ([delays, steps]) => {
    const { accepted, doc, state } = run(delays, steps)
    const attempts = attemptsOf(accepted)
    expect(attempts.length).toBeLessThanOrEqual(delays.length + 1)
    expect(doc?.data["attempt_count"]).toBe(attempts.length)
    expect(state.status === "absent" ? -1 : state.attemptCount).toBe(attempts.length)
    const last = attempts.at(-1)
    if (attempts.length === delays.length + 1 && last !== undefined) expect(last.data.result).not.toBe("retrying")
  }, { fastCheck: { numRuns: 300 } })

  prop("wait the scheduled delay ±20%, or a Retry-After clamped to [delay, 2·delay]", [schedule, stepSequence], ([delays, steps]) => {
    for (const { at, attemptNumber, data, step: s } of attemptsOf(run(delays, steps).accepted)) {
      if (data.result !== "retrying") {
        expect(data.next_attempt_at).toBeNull()
        continue
      }
      const delay = delays[attemptNumber - 1] ?? Number.NaN
      const gap = Date.parse(data.next_attempt_at ?? "") - at
      const honoured = s.kind === "attempt" && (s.statusCode === 429 || s.statusCode === 503) && s.retryAfterSeconds !== null
      const [min, max] = honoured ? [delay, 2 * delay] : [0.8 * delay, 1.2 * delay]
      expect(gap).toBeGreaterThanOrEqual(min)
      expect(gap).toBeLessThanOrEqual(max)
      expect(Number.isInteger(gap)).toBe(true)
    }
  }, { fastCheck: { numRuns: 300 } })

  prop("fail on 410 and on exhaustion, and only then", [schedule, stepSequence], ([delays, steps]) => {
    for (const { attemptNumber, data, step: s } of attemptsOf(run(delays, steps).accepted)) {
      const code = s.kind === "attempt" ? s.statusCode : null
      const expected = code !== null && code >= 200 && code < 300
        ? ["succeeded", null]
        : code === 410
        ? ["failed", "gone"]
        : attemptNumber > delays.length
        ? ["failed", "exhausted"]
        : ["retrying", null]
      expect([data.result, data.failure]).toEqual(expected)
    }
  }, { fastCheck: { numRuns: 300 } })

  prop("accept nothing once succeeded, failed or cancelled", [schedule, stepSequence], ([delays, steps]) => {
    const { accepted, refused } = run(delays, steps)
    const settledAt = accepted.findIndex(({ event }) =>
      event.type === "delivery.cancelled" || (event.type === "delivery.attempted" && event.data.result !== "retrying"))
    if (settledAt !== -1) expect(accepted.length).toBe(settledAt + 1)
    for (const r of refused) {
      expect(r.status).not.toBe("pending")
      // A late attempt is a conflict the engine reads as "cancelled meanwhile"; a late cancel is no error at all.
      expect(r.step.kind).toBe("attempt")
      expect(r.tag).toBe("Conflict")
    }
  }, { fastCheck: { numRuns: 300 } })

  prop("keep a settled delivery as it was when cancelled afterwards", [schedule, stepSequence], ([delays, steps]) => {
    const before = run(delays, steps)
    const after = run(delays, [...steps, { kind: "cancel" }])
    if (before.state.status === "pending") {
      expect(after.doc?.data["status"]).toBe("cancelled")
      expect(after.doc?.data["next_attempt_at"]).toBeNull()
    } else {
      expect(after.doc).toEqual(before.doc)
      expect(after.accepted.length).toBe(before.accepted.length)
    }
  }, { fastCheck: { numRuns: 300 } })
})
