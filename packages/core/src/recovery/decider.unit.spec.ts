import { describe, expect, it } from "@effect/vitest"
import { DeciderSpecification } from "../testing/deciderSpecification.js"
import { recoveryDecider, recoveryView } from "./decider.js"
import type { RecoveryEvent } from "./events.js"

const given = DeciderSpecification.for(recoveryDecider)
const id = "rcv_1"
const t0 = "2026-01-01T00:00:00.000Z"
const t1 = "2026-01-01T00:00:01.000Z"
const t2 = "2026-01-01T00:00:02.000Z"
const started: RecoveryEvent = { type: "recovery.started", data: { id, webhook_id: "wh_1", since: "2025-12-31T00:00:00.000Z", at: t0 } }
const pos = (sequence: number) => ({ transaction: "7", sequence })
const progress = (sequence: number, scheduled: number, skipped: number, time: string): RecoveryEvent => ({
  type: "recovery.progressed",
  data: { runner: "host-a", until: pos(900), position: pos(sequence), scheduled, skipped, at: time }
})
const fold = (events: ReadonlyArray<RecoveryEvent>) => events.reduce(recoveryDecider.evolve, recoveryDecider.initialState)

describe("recoveryDecider", () => {
  it("starts a job once", () => {
    const start = { type: "StartRecovery", id, at: t0, webhookId: "wh_1", since: "2025-12-31T00:00:00.000Z" } as const
    given([]).when(start).then([started])
    given([started]).when(start).thenFails("Conflict")
  })

  it("records chunks while running, and nothing once finished", () => {
    const chunk = {
      type: "RecordRecoveryProgress",
      id,
      at: t1,
      runner: "host-a",
      until: pos(900),
      position: pos(500),
      scheduled: 480,
      skipped: 20
    } as const
    given([started])
      .when(chunk)
      .then([progress(500, 480, 20, t1)])
    const finished: RecoveryEvent = { type: "recovery.finished", data: { status: "done", reason: null, at: t2 } }
    given([started]).when({ type: "FinishRecovery", id, at: t2, status: "done", reason: null }).then([finished])
    given([started, finished]).when(chunk).thenNothingHappens()
    given([started, finished]).when({ type: "FinishRecovery", id, at: t2, status: "failed", reason: "x" }).thenNothingHappens()
    given([]).when(chunk).thenFails("NotFound")
  })

  it("sums the chunks' counts, and shows the job as the API does", () => {
    const state = fold([started, progress(500, 480, 20, t1), progress(900, 390, 10, t2)])
    if (state.status !== "present") throw new Error("absent")
    expect(state.job).toMatchObject({ position: pos(900), until: pos(900), scheduled: 870, skipped: 30, runner: "host-a", lastAt: t2 })
    const done = fold([started, progress(500, 480, 20, t1), { type: "recovery.finished", data: { status: "done", reason: null, at: t2 } }])
    if (done.status !== "present") throw new Error("absent")
    expect(recoveryView(done.job)).toEqual({
      id,
      webhook_id: "wh_1",
      since: "2025-12-31T00:00:00.000Z",
      status: "done",
      scheduled: 480,
      skipped: 20,
      created_at: t0,
      finished_at: t2
    })
  })

  it("walks again from the start after a chunk recorded in sequences, before positions were the feed's", () => {
    const legacy: RecoveryEvent = {
      type: "recovery.progressed",
      data: { runner: "host-a", until: 900, position: 500, scheduled: 480, skipped: 20, at: t1 }
    }
    const state = fold([started, legacy])
    if (state.status !== "present") throw new Error("absent")
    expect(state.job).toMatchObject({ position: null, until: null, scheduled: 480, skipped: 20, status: "running" })
    const next = fold([started, legacy, progress(300, 10, 5, t2)])
    if (next.status !== "present") throw new Error("absent")
    expect(next.job).toMatchObject({ position: pos(300), until: pos(900), scheduled: 490, skipped: 25 })
  })
})
