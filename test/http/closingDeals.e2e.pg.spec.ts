import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startReceiver, type Receiver } from "../webhooks/receiver.js"
import { type Answer, errorOf, hostFor, STORAGES } from "./client.js"

// Deals close as every CRM closes them (issue 27, API.md "Closing deals"), over HTTP on memory and
// on PostgreSQL: each rule of "status follows the stage, both ways", with the timeline, the
// deal.stage_changed webhook (a real receiver) and the stage rules. Every answer is checked
// against /v1/openapi.json by the client.
describe.each(STORAGES)("closing deals on %s storage", (storage) => {
  const host = hostFor(storage, { webhooks: { allowInsecure: true } })
  let receiver: Receiver
  let sales: {
    id: string
    stages: Array<{ id: string; name: string; position: number; outcome: string | null; probability: number | null }>
  }

  beforeAll(async () => {
    receiver = await startReceiver()
    sales = (await host.call("GET", "/v1/pipelines")).body.data[0]
    const hook = await host.call("POST", "/v1/webhooks", { body: { url: `${receiver.url}/hook`, events: ["deal.stage_changed"] } })
    expect(hook.status, hook.text).toBe(201)
  })
  afterAll(async () => {
    await receiver.close()
  })

  const stage = (name: string) => sales.stages.find((s) => s.name === name)!.id
  const ok = (answer: Answer, status = 200) => {
    expect(answer.status, answer.text).toBe(status)
    return answer.body
  }
  const newDeal = async (body: Record<string, unknown> = {}) =>
    ok(await host.call("POST", "/v1/deals", { body: { name: "Pilot", pipeline_id: sales.id, value: 1000, currency: "EUR", ...body } }), 201)
  const timeline = async (id: string) => ok(await host.call("GET", `/v1/deals/${id}/timeline`)).data
  /** The deal.stage_changed payloads the receiver got for this deal, once there are `count`. */
  const announced = async (dealId: string, count: number) => {
    const of = (all: ReadonlyArray<{ json?: any }>) =>
      all.filter((r) => r.json?.type === "deal.stage_changed" && r.json.data.deal.id === dealId).map((r) => r.json.data)
    await receiver.waitFor((all) => of(all).length >= count, `${count} deal.stage_changed of ${dealId}`)
    return of(receiver.received)
  }

  it("gives a new workspace's Sales pipeline its outcomes and probabilities", () => {
    expect(sales.stages.map(({ name, outcome, probability }) => [name, outcome, probability])).toEqual([
      ["Lead", null, 0.1],
      ["Qualified", null, 0.25],
      ["Proposal", null, 0.5],
      ["Negotiation", null, 0.75],
      ["Won", "won", 1],
      ["Lost", "lost", 0]
    ])
  })

  it("closes a deal that enters Won or Lost (PUT or PATCH), with closed_at the move's time and the lost reason", async () => {
    const deal = await newDeal()
    expect(deal).toMatchObject({ status: "open", closed_at: null, lost_reason: null, probability: null, weighted_value: 100 })
    expect(deal.stage_entered_at).toBe(deal.created_at)
    const won = ok(await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Won"), reason: "signed" } }))
    expect(won.timeline_entry).toMatchObject({
      from_stage_id: stage("Lead"),
      to_stage_id: stage("Won"),
      from_status: "open",
      to_status: "won"
    })
    expect(won.deal).toMatchObject({ status: "won", closed_at: won.timeline_entry.changed_at, lost_reason: null, weighted_value: 1000 })
    expect(won.deal.stage_entered_at).toBe(won.timeline_entry.changed_at)
    const [payload] = await announced(deal.id, 1)
    expect(payload.deal).toMatchObject({ status: "won", stage_id: stage("Won") })
    expect(payload.timeline_entry).toEqual(won.timeline_entry)

    const lost = await newDeal()
    const byReason = ok(await host.call("PUT", `/v1/deals/${lost.id}/stage`, { body: { stage_id: stage("Lost"), reason: "budget" } }))
    expect(byReason.deal).toMatchObject({ status: "lost", lost_reason: "budget", closed_at: byReason.timeline_entry.changed_at })
    const patched = await newDeal()
    const byBody = ok(
      await host.call("PATCH", `/v1/deals/${patched.id}`, { body: { stage_id: stage("Lost"), lost_reason: "went with a rival" } })
    )
    expect(byBody).toMatchObject({ status: "lost", lost_reason: "went with a rival", weighted_value: 0 })
    const [entry] = await timeline(patched.id)
    expect(entry).toMatchObject({ to_stage_id: stage("Lost"), from_status: "open", to_status: "lost" })
    expect(byBody.closed_at).toBe(entry.changed_at)
  })

  it("reopens a deal that leaves a closing stage for an open one", async () => {
    const deal = await newDeal()
    ok(await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Lost"), reason: "budget" } }))
    const back = ok(await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Proposal") } }))
    expect(back.deal).toMatchObject({ status: "open", closed_at: null, lost_reason: null, stage_id: stage("Proposal") })
    expect(back.timeline_entry).toMatchObject({ from_status: "lost", to_status: "open" })
    expect((await announced(deal.id, 2)).map((p) => p.timeline_entry.to_status)).toEqual(["lost", "open"])
  })

  it("moves a deal into the first stage of the outcome a PATCH of its status names, as any move", async () => {
    const deal = await newDeal()
    ok(await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Negotiation") } }))
    const won = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "won" } }))
    expect(won).toMatchObject({ status: "won", stage_id: stage("Won") })
    const entries = await timeline(deal.id)
    expect(entries.map((e: { to_stage_id: string; to_status: string }) => [e.to_stage_id, e.to_status])).toEqual([
      [stage("Negotiation"), "open"],
      [stage("Won"), "won"]
    ])
    expect(won.closed_at).toBe(entries[1].changed_at)
    expect((await announced(deal.id, 2)).at(-1).deal).toMatchObject({ status: "won" })

    // Open again: back to the stage it was in before it closed, found in its timeline.
    const reopened = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "open" } }))
    expect(reopened).toMatchObject({ status: "open", stage_id: stage("Negotiation"), closed_at: null })
    expect((await timeline(deal.id)).at(-1)).toMatchObject({
      from_stage_id: stage("Won"),
      to_stage_id: stage("Negotiation"),
      to_status: "open"
    })
    expect((await announced(deal.id, 3)).at(-1).timeline_entry).toMatchObject({ from_status: "won", to_status: "open" })

    // Lost by status, with its reason; a deal created lost starts in Lost and reopens into the first open stage.
    const lost = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "lost", lost_reason: "timing" } }))
    expect(lost).toMatchObject({ status: "lost", stage_id: stage("Lost"), lost_reason: "timing" })
    const born = await newDeal({ status: "lost" })
    expect(born).toMatchObject({ stage_id: stage("Lost"), status: "lost", closed_at: born.created_at })
    expect(ok(await host.call("PATCH", `/v1/deals/${born.id}`, { body: { status: "open" } }))).toMatchObject({ stage_id: stage("Lead") })
  })

  it("only sets the status in a pipeline without closing stages", async () => {
    const plain = ok(
      await host.call("POST", "/v1/pipelines", { body: { name: "Partners", stages: [{ name: "Intro" }, { name: "Pilot" }] } }),
      201
    )
    const deal = ok(await host.call("POST", "/v1/deals", { body: { name: "Reseller", pipeline_id: plain.id } }), 201)
    const won = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "won" } }))
    expect(won).toMatchObject({ status: "won", stage_id: plain.stages[0].id })
    expect(won.closed_at).toBe(won.updated_at)
    expect(await timeline(deal.id)).toEqual([])
    // A move between open stages keeps a status set by hand; open reopens where it is.
    const moved = ok(await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: plain.stages[1].id } }))
    expect(moved.deal).toMatchObject({ status: "won", closed_at: won.closed_at })
    expect(moved.timeline_entry).toMatchObject({ from_status: "won", to_status: "won" })
    const lost = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "lost", lost_reason: "no fit" } }))
    expect(lost).toMatchObject({ status: "lost", lost_reason: "no fit", stage_id: plain.stages[1].id })
    const open = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "open" } }))
    expect(open).toMatchObject({ status: "open", closed_at: null, lost_reason: null, stage_id: plain.stages[1].id })

    // Marked later (README: how to mark a pipeline made before closing stages), its stages close deals.
    const marked = ok(
      await host.call("PATCH", `/v1/pipelines/${plain.id}`, {
        body: {
          stages: [
            { id: plain.stages[0].id, name: "Intro", probability: 0.2 },
            { id: plain.stages[1].id, name: "Pilot" },
            { name: "Signed", outcome: "won", probability: 1 }
          ]
        }
      })
    )
    expect(marked.stages.map((s: { outcome: string | null; probability: number | null }) => [s.outcome, s.probability])).toEqual([
      [null, 0.2],
      [null, null],
      ["won", 1]
    ])
    expect(ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "won" } }))).toMatchObject({
      stage_id: marked.stages[2].id
    })
  })

  it("refuses a body that contradicts itself at status, and a lost reason on a deal that is not lost, changing nothing", async () => {
    const deal = await newDeal()
    const contradicts = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { stage_id: stage("Won"), status: "lost" } })
    expect(contradicts.status).toBe(400)
    expect(errorOf(contradicts).details.map((d) => d.path)).toEqual(["status"])
    const openStage = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { stage_id: stage("Proposal"), status: "won" } })
    expect(errorOf(openStage).details.map((d) => d.path)).toEqual(["status"])
    const created = await host.call("POST", "/v1/deals", {
      body: { name: "x", pipeline_id: sales.id, stage_id: stage("Won"), status: "open" }
    })
    expect(errorOf(created).details.map((d) => d.path)).toEqual(["status"])
    const reason = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { lost_reason: "why" } })
    expect(errorOf(reason).details.map((d) => d.path)).toEqual(["lost_reason"])
    const moveReason = await host.call("PUT", `/v1/deals/${deal.id}/stage`, { body: { stage_id: stage("Won"), lost_reason: "why" } })
    expect(errorOf(moveReason).details.map((d) => d.path)).toEqual(["lost_reason"])
    const readOnly = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { closed_at: "2026-01-01T00:00:00Z" } })
    expect(errorOf(readOnly).details).toEqual([{ path: "closed_at", message: "is read-only" }])
    const unchanged = await host.call("GET", `/v1/deals/${deal.id}`)
    expect([unchanged.body.status, unchanged.body.stage_id, unchanged.headers.get("etag")]).toEqual(["open", stage("Lead"), '"1"'])
    expect(await timeline(deal.id)).toEqual([])
  })

  it("applies the stage rules to the moves a status makes", async () => {
    const rules = await host.call("POST", "/v1/pipelines", {
      body: {
        name: "Ruled",
        stages: [{ name: "Open" }, { name: "Won", outcome: "won", required_fields: ["value"] }, { name: "Lost", outcome: "lost" }]
      }
    })
    const pipeline = ok(rules, 201)
    const [open, won] = pipeline.stages
    ok(
      await host.call("PATCH", `/v1/pipelines/${pipeline.id}`, {
        body: {
          stages: pipeline.stages.map((s: { id: string; name: string }) =>
            s.id === won.id ? { id: s.id, name: s.name, next_stage_ids: [] } : { id: s.id, name: s.name }
          )
        }
      })
    )
    const deal = ok(await host.call("POST", "/v1/deals", { body: { name: "Ruled", pipeline_id: pipeline.id } }), 201)
    const refused = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "won" } })
    expect(refused.status).toBe(400)
    expect(errorOf(refused).details).toEqual([
      { path: "value", message: `is required to enter stage "Won" (stage rule required_fields of ${won.id})`, id: won.id }
    ])
    const wonDeal = ok(await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "won", value: 10 } }))
    expect(wonDeal).toMatchObject({ status: "won", stage_id: won.id, value: 10 })
    // Won is final: reopening would move it out.
    const final = await host.call("PATCH", `/v1/deals/${deal.id}`, { body: { status: "open" } })
    expect(errorOf(final).details.map((d) => [d.path, d.id])).toEqual([["stage_id", won.id]])
    expect(open.outcome).toBeNull()
  })

  it("shows probability and weighted_value, filters by closed day and sorts by closed_at and weighted_value", async () => {
    const pipeline = ok(
      await host.call("POST", "/v1/pipelines", {
        body: { name: "Weighed", stages: [{ name: "A", probability: 0.5 }, { name: "B" }, { name: "Won", outcome: "won", probability: 1 }] }
      }),
      201
    )
    const [a, b, won] = pipeline.stages.map((s: { id: string }) => s.id)
    const create = async (body: Record<string, unknown>) =>
      ok(await host.call("POST", "/v1/deals", { body: { name: "W", pipeline_id: pipeline.id, ...body } }), 201)
    const half = await create({ value: 300, currency: "JPY" })
    const own = await create({ value: 100, currency: "EUR", probability: 0.9 })
    const none = await create({ value: 50, stage_id: b })
    const noValue = await create({ probability: 0.3 })
    expect([half.weighted_value, own.weighted_value, none.weighted_value, noValue.weighted_value]).toEqual([150, 90, null, null])
    expect(own.probability).toBe(0.9)
    const wonDeal = ok(await host.call("PUT", `/v1/deals/${half.id}/stage`, { body: { stage_id: won } })).deal
    const day = wonDeal.closed_at.slice(0, 10)
    const listed = async (query: string) =>
      ok(await host.call("GET", `/v1/deals?pipeline_id=${pipeline.id}&${query}`)).data.map((d: { id: string }) => d.id)
    expect(await listed(`closed_from=${day}&closed_to=${day}`)).toEqual([half.id])
    expect(await listed("closed_to=2000-01-01")).toEqual([])
    // Without a weighted value, last ascending and first descending, ties by id.
    expect(await listed("sort=-weighted_value")).toEqual([noValue.id, none.id, half.id, own.id])
    expect(await listed("sort=weighted_value")).toEqual([own.id, half.id, none.id, noValue.id])
    expect(await listed("sort=closed_at&limit=1")).toEqual([half.id])
    const refused = await host.call("GET", `/v1/deals?filter=${encodeURIComponent('{"weighted_value": 1}')}`)
    expect(errorOf(refused).details[0]!.path).toBe("filter.weighted_value")
    expect(a).toBe(pipeline.stages[0].id)
  })
})
