import { describe, expect } from "@effect/vitest"
import * as fc from "fast-check"
import { cancelDelivery, recordAttempt, scheduleDelivery } from "../testing/arbitraries/delivery.js"
import { prop } from "../testing/property.js"
import { type StreamNow, traceCommands } from "../testing/trace.js"
import { deliveryAggregate } from "./aggregate.js"
import type { CancelDelivery, DeliveryCommand, RecordAttempt } from "./commands.js"
import type { DeliveryState } from "./decider.js"
import type { DeliveryEvent } from "./events.js"
import { DEFAULT_RETRY_SCHEDULE } from "./schedule.js"

// The harness's delivery arbitraries give the answers (2xx, 410, 429/503 with a Retry-After, other
// failures, no answer), the jitter and retry schedules; each attempt here is made when the one
// before asked for it, as a worker makes them.
const schedule = fc.oneof(fc.constant(DEFAULT_RETRY_SCHEDULE), fc.array(fc.integer({ min: 1, max: 10_000_000 }), { maxLength: 8 }))
type Step = RecordAttempt | CancelDelivery
const step: fc.Arbitrary<Step> = fc.oneof({ arbitrary: recordAttempt, weight: 12 }, { arbitrary: cancelDelivery, weight: 1 })
const stepSequence = fc.array(step, { maxLength: 60 })

interface Accepted {
  readonly step: Step
  readonly at: number
  readonly attemptNumber: number
  readonly event: DeliveryEvent
}

/** Runs the steps as a worker would: each attempt at the time the previous one asked for. */
const run = (delays: ReadonlyArray<number>, steps: ReadonlyArray<Step>) => {
  const scheduled = fc.sample(scheduleDelivery, { numRuns: 1, seed: 1 })[0]!
  const id = scheduled.id
  let now = Date.parse(scheduled.at)
  const commands = steps.map((s) => ({ document }: StreamNow<DeliveryState>): DeliveryCommand => {
    const next = document?.data["next_attempt_at"]
    if (typeof next === "string") now = Math.max(now, Date.parse(next))
    const at = new Date(now).toISOString()
    return s.type === "CancelDelivery" ? { ...s, id, at } : { ...s, id, at, schedule: delays }
  })
  const trace = traceCommands(deliveryAggregate, [scheduled, ...commands])
  const accepted: Array<Accepted> = []
  const refused: Array<{ step: Step; status: string; tag: string }> = []
  let attempts = 0
  trace.steps.slice(1).forEach((traced, i) => {
    const s = steps[i]!
    if (traced.error !== null) {
      refused.push({ step: s, status: traced.stateBefore.status, tag: traced.error._tag })
      return
    }
    if (s.type === "RecordAttempt") attempts++
    for (const event of traced.events) accepted.push({ step: s, at: Date.parse(traced.command.at), attemptNumber: attempts, event })
  })
  return { accepted, refused, state: trace.state, doc: trace.document }
}

const attemptsOf = (accepted: ReadonlyArray<Accepted>) =>
  accepted.flatMap((a) => (a.event.type === "delivery.attempted" ? [{ ...a, data: a.event.data }] : []))

describe("delivery retries", () => {
  prop(
    "never make more than schedule.length + 1 attempts",
    [schedule, stepSequence],
    ([delays, steps]) => {
      const { accepted, doc, state } = run(delays, steps)
      const attempts = attemptsOf(accepted)
      expect(attempts.length).toBeLessThanOrEqual(delays.length + 1)
      expect(doc?.data["attempt_count"]).toBe(attempts.length)
      expect(state.status === "absent" ? -1 : state.attemptCount).toBe(attempts.length)
      const last = attempts.at(-1)
      if (attempts.length === delays.length + 1 && last !== undefined) expect(last.data.result).not.toBe("retrying")
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop(
    "wait the scheduled delay ±20%, or a Retry-After clamped to [delay, 2·delay]",
    [schedule, stepSequence],
    ([delays, steps]) => {
      for (const { at, attemptNumber, data, step: s } of attemptsOf(run(delays, steps).accepted)) {
        if (data.result !== "retrying") {
          expect(data.next_attempt_at).toBeNull()
          continue
        }
        const delay = delays[attemptNumber - 1] ?? Number.NaN
        const gap = Date.parse(data.next_attempt_at ?? "") - at
        const honoured = s.type === "RecordAttempt" && (s.statusCode === 429 || s.statusCode === 503) && s.retryAfterSeconds !== null
        const [min, max] = honoured ? [delay, 2 * delay] : [0.8 * delay, 1.2 * delay]
        expect(gap).toBeGreaterThanOrEqual(min)
        expect(gap).toBeLessThanOrEqual(max)
        expect(Number.isInteger(gap)).toBe(true)
      }
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop(
    "fail on 410 and on exhaustion, and only then",
    [schedule, stepSequence],
    ([delays, steps]) => {
      for (const { attemptNumber, data, step: s } of attemptsOf(run(delays, steps).accepted)) {
        const code = s.type === "RecordAttempt" ? s.statusCode : null
        const expected =
          code !== null && code >= 200 && code < 300
            ? ["succeeded", null]
            : code === 410
              ? ["failed", "gone"]
              : attemptNumber > delays.length
                ? ["failed", "exhausted"]
                : ["retrying", null]
        expect([data.result, data.failure]).toEqual(expected)
      }
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop(
    "accept nothing once succeeded, failed or cancelled",
    [schedule, stepSequence],
    ([delays, steps]) => {
      const { accepted, refused } = run(delays, steps)
      const settledAt = accepted.findIndex(
        ({ event }) => event.type === "delivery.cancelled" || (event.type === "delivery.attempted" && event.data.result !== "retrying")
      )
      if (settledAt !== -1) expect(accepted.length).toBe(settledAt + 1)
      for (const r of refused) {
        expect(r.status).not.toBe("pending")
        // A late attempt is a conflict the engine reads as "cancelled meanwhile"; a late cancel is no error at all.
        expect(r.step.type).toBe("RecordAttempt")
        expect(r.tag).toBe("Conflict")
      }
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop(
    "keep a settled delivery as it was when cancelled afterwards",
    [schedule, stepSequence],
    ([delays, steps]) => {
      const before = run(delays, steps)
      const after = run(delays, [...steps, { type: "CancelDelivery", id: "dlv_any", at: "" }])
      if (before.state.status === "pending") {
        expect(after.doc?.data["status"]).toBe("cancelled")
        expect(after.doc?.data["next_attempt_at"]).toBeNull()
      } else {
        expect(after.doc).toEqual(before.doc)
        expect(after.accepted.length).toBe(before.accepted.length)
      }
    },
    { fastCheck: { numRuns: 300 } }
  )
})
