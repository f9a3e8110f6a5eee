import { beforeAll, describe, expect, it } from "vitest"
import { type Answer, errorOf, hostFor, STORAGES } from "./client.js"

// The pipeline figures over HTTP on memory and PostgreSQL (API.md, "Pipeline analytics"): the
// worked example of docs/analytics.md, the deleted deal that counts nowhere until restored, as_of,
// and the refusals. That every figure equals a fold of the history after random commands is
// test/engine/pipelineFigures.*.spec.ts; here the figures meet the HTTP host and its schemas.
const DAY = 86_400_000
const dayOf = (millis: number) => new Date(millis).toISOString().slice(0, 10)
const days = (millis: number) => Math.round((millis / DAY) * 100) / 100

describe.each(STORAGES)("pipeline analytics on %s storage", (storage) => {
  const host = hostFor(storage)
  let sales: { id: string; stages: Array<{ id: string; name: string }> }
  const stage = (name: string) => sales.stages.find((s) => s.name === name)!.id
  const ok = (answer: Answer, status = 200) => {
    expect(answer.status, answer.text).toBe(status)
    return answer.body
  }
  const create = async (body: Record<string, unknown>) =>
    ok(await host.call("POST", "/v1/deals", { body: { name: "Deal", pipeline_id: sales.id, ...body } }), 201)
  const move = async (id: string, name: string) => ok(await host.call("PUT", `/v1/deals/${id}/stage`, { body: { stage_id: stage(name) } }))
  // A window around now that no midnight can cut: yesterday to the day after tomorrow.
  const now = Date.now()
  const window = `from=${dayOf(now - DAY)}&to=${dayOf(now + 2 * DAY)}`

  const made: Record<string, { id: string; stage_entered_at: string; created_at: string; closed_at: string | null }> = {}
  beforeAll(async () => {
    sales = (await host.call("GET", "/v1/pipelines")).body.data[0]
    made["lead"] = await create({ value: 1000, currency: "EUR", owner_id: "ann" })
    const proposal = await create({ value: 2000, currency: "EUR", expected_close_date: dayOf(now + DAY), owner_id: "bob" })
    await move(proposal.id, "Qualified")
    made["proposal"] = (await move(proposal.id, "Proposal")).deal
    const won = await create({ value: 500, currency: "USD", probability: 0.9, owner_id: "ann" })
    made["won"] = (await move(won.id, "Won")).deal
    const lost = await create({ value: 300 })
    made["lost"] = (await move(lost.id, "Lost")).deal
    made["trashed"] = (await move((await create({ value: 7000, currency: "EUR" })).id, "Negotiation")).deal
    expect((await host.call("DELETE", `/v1/deals/${made["trashed"]!.id}`)).status).toBe(204)
  })

  it("sums the pipeline's live deals per stage and currency, weighted, with their days in the stage", async () => {
    const summary = ok(await host.call("GET", `/v1/pipelines/${sales.id}/summary`))
    const asOf = Date.parse(summary.as_of)
    const since = (key: string) => days(asOf - Date.parse(made[key]!.stage_entered_at))
    expect(summary).toEqual({
      pipeline_id: sales.id,
      as_of: summary.as_of,
      stages: [
        { stage_id: stage("Lead"), count: 1, value: { EUR: 1000 }, weighted_value: { EUR: 100 }, average_days_in_stage: since("lead") },
        { stage_id: stage("Qualified"), count: 0, value: {}, weighted_value: {}, average_days_in_stage: null },
        {
          stage_id: stage("Proposal"),
          count: 1,
          value: { EUR: 2000 },
          weighted_value: { EUR: 1000 },
          average_days_in_stage: since("proposal")
        },
        { stage_id: stage("Negotiation"), count: 0, value: {}, weighted_value: {}, average_days_in_stage: null },
        // Its own probability, 0.9, not the stage's.
        { stage_id: stage("Won"), count: 1, value: { USD: 500 }, weighted_value: { USD: 450 }, average_days_in_stage: since("won") },
        // A value without a currency counts under XXX.
        { stage_id: stage("Lost"), count: 1, value: { XXX: 300 }, weighted_value: { XXX: 0 }, average_days_in_stage: since("lost") }
      ],
      open: { count: 2, value: { EUR: 3000 }, weighted_value: { EUR: 1100 } }
    })
    const ann = ok(await host.call("GET", `/v1/pipelines/${sales.id}/summary?owner_id=ann`))
    expect(ann.stages.map((s: { count: number }) => s.count)).toEqual([1, 0, 0, 0, 1, 0])
  })

  it("counts conversion, days in stage, win rate and cycle over a window", async () => {
    const conversion = ok(await host.call("GET", `/v1/pipelines/${sales.id}/conversion?${window}`))
    const stay = (entered: string, left: string) => days(Date.parse(left) - Date.parse(entered))
    expect(
      conversion.stages.map((s: { entered: number; advanced: number; conversion_rate: number | null }) => [
        s.entered,
        s.advanced,
        s.conversion_rate
      ])
    ).toEqual([
      [4, 2, 0.5], // Lead: the four live deals entered it; two moved up (to Qualified, to Won), one was lost
      [1, 1, 1],
      [1, 0, 0],
      [0, 0, null],
      [1, 0, 0],
      [1, 0, 0]
    ])
    expect(conversion).toMatchObject({ pipeline_id: sales.id, won: 1, lost: 1, win_rate: 0.5 })
    expect(conversion.average_cycle_days).toBe(stay(made["won"]!.created_at, made["won"]!.closed_at!))
    expect(conversion.stages[0].average_days).not.toBeNull()
    expect(conversion.stages[0].median_days).not.toBeNull()
    const nothing = ok(await host.call("GET", `/v1/pipelines/${sales.id}/conversion?from=2000-01-01&to=2000-02-01`))
    expect(nothing).toMatchObject({ won: 0, lost: 0, win_rate: null, average_cycle_days: null })
  })

  it("forecasts open deals by expected close date and won deals by close date, per period", async () => {
    const forecast = ok(await host.call("GET", `/v1/deals/forecast?pipeline_id=${sales.id}&${window}`))
    expect(forecast.interval).toBe("month")
    const bucketOf = (period: string) => forecast.buckets.find((b: { period: string }) => b.period === period)
    const closeMonth = dayOf(now + DAY).slice(0, 7)
    expect(bucketOf(closeMonth).open).toEqual({ count: 1, value: { EUR: 2000 }, weighted_value: { EUR: 1000 } })
    expect(bucketOf(dayOf(Date.parse(made["won"]!.closed_at!)).slice(0, 7)).won).toEqual({ count: 1, value: { USD: 500 } })
    expect(forecast.unscheduled).toEqual({ count: 1, value: { EUR: 1000 }, weighted_value: { EUR: 100 } })
    const quarters = ok(await host.call("GET", `/v1/deals/forecast?interval=quarter&from=2027-01-01&to=2028-01-01`))
    expect(quarters.buckets.map((b: { period: string }) => b.period)).toEqual(["2027-Q1", "2027-Q2", "2027-Q3", "2027-Q4"])
  })

  it("counts a deal in the trash nowhere, and again once restored; as_of gives the pipeline as it stood", async () => {
    const before = ok(await host.call("GET", `/v1/pipelines/${sales.id}/summary`))
    ok(await host.call("POST", `/v1/deals/${made["trashed"]!.id}/restore`))
    const after = ok(await host.call("GET", `/v1/pipelines/${sales.id}/summary`))
    expect(after.stages[3]).toMatchObject({ count: 1, value: { EUR: 7000 }, weighted_value: { EUR: 5250 } })
    expect(after.open.count).toBe(before.open.count + 1)
    // As of the instant of the first summary, when it was in the trash; and before the pipeline was made.
    const then = ok(await host.call("GET", `/v1/pipelines/${sales.id}/summary?as_of=${encodeURIComponent(before.as_of)}`))
    expect(then.stages.map((s: { count: number }) => s.count)).toEqual(before.stages.map((s: { count: number }) => s.count))
    expect(then.open).toEqual(before.open)
    const early = await host.call("GET", `/v1/pipelines/${sales.id}/summary?as_of=2000-01-01T00:00:00Z`)
    expect(early.status).toBe(404)
  })

  it("refuses a missing or inverted window, an unknown parameter or interval, and an unknown pipeline", async () => {
    const paths = async (path: string, status = 400) => {
      const answer = await host.call("GET", path)
      expect(answer.status, answer.text).toBe(status)
      return errorOf(answer).details.map((d) => d.path)
    }
    expect(await paths(`/v1/pipelines/${sales.id}/conversion`)).toEqual(["from", "to"])
    expect(await paths(`/v1/pipelines/${sales.id}/conversion?from=2027-02-01&to=2027-01-01`)).toEqual(["to"])
    expect(await paths(`/v1/pipelines/${sales.id}/conversion?from=2027-02-30&to=2027-03-01`)).toEqual(["from"])
    expect(await paths(`/v1/deals/forecast?from=2027-01-01&to=2028-01-01&interval=week`)).toEqual(["interval"])
    expect(await paths(`/v1/deals/forecast?from=2000-01-01&to=2027-01-01`)).toEqual(["to"])
    expect(await paths(`/v1/deals/forecast?from=2027-01-01&to=2028-01-01&pipeline_id=pipe_nope`)).toEqual(["pipeline_id"])
    expect(await paths(`/v1/pipelines/${sales.id}/summary?owner=ann`)).toEqual(["owner"])
    expect(await paths(`/v1/pipelines/${sales.id}/summary?as_of=yesterday`)).toEqual(["as_of"])
    expect(await paths("/v1/pipelines/pipe_nope/summary", 404)).toEqual([])
    expect(await paths(`/v1/pipelines/pipe_nope/conversion?${window}`, 404)).toEqual([])
  })
})
