import {
  addDecimal,
  amountsByCurrency,
  type Decimal,
  decimalOf,
  divideRounded,
  type EngineService,
  type Json,
  type JsonObject,
  mulDecimal,
  NO_CURRENCY,
  rebuildDocuments,
  type RequestContext,
  Storage,
  type StoredEvent
} from "@dealstream/core"
import {
  assertModel,
  attempt,
  DAY,
  executeCommand,
  invariant,
  START,
  type World,
  type WorkspaceCommand,
  workspaceCommand
} from "@dealstream/core/testing"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { isDeepStrictEqual } from "node:util"

/**
 * Issue 27, item 5: every pipeline figure the engine answers (summary now and as of an instant,
 * conversion over windows, forecast by month and quarter, all owners and one) equals what a fold of
 * the run's history gives, computed here from the events alone by the definitions of API.md
 * ("Pipeline analytics"), after every command of random sequences of deal creates, moves, status
 * and value patches, owner and probability changes, deletes, restores, purges and stage edits
 * (outcomes, probabilities, reorders). The engine reads its figures from the documents each deal
 * commit keeps and aggregates them in the storage (SQL on PostgreSQL); this file knows nothing of
 * those.
 */

// ---------------------------------------------------------------------------------------------
// The commands: the model runner's deal and pipeline commands, and two of this property's own.

/** Sets a stage's outcome and probability (PATCH /v1/pipelines/:id with the stage list). */
interface MarkStage {
  readonly kind: "markStage"
  readonly pipeline: number
  readonly stage: number
  readonly outcome: "won" | "lost" | null
  readonly probability: number | null
}

/** A PATCH of a deal's owner, own probability, status or lost reason. */
interface PatchDeal {
  readonly kind: "patchDeal"
  readonly target: number
  readonly body: Readonly<Record<string, unknown>>
}

export type FigureStep = WorkspaceCommand | MarkStage | PatchDeal

const OWNERS = ["ann", "bob"] as const
const PROBABILITIES = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1] as const

const dealCommands = workspaceCommand({
  weights: {
    defineField: 0,
    deleteField: 0,
    createContact: 0,
    updateContact: 0,
    deleteContact: 0,
    restoreContact: 0,
    contactBatch: 0,
    createCompany: 0,
    updateCompany: 0,
    deleteCompany: 0,
    restoreCompany: 0,
    companyBatch: 0,
    createActivity: 0,
    updateActivity: 0,
    deleteActivity: 0,
    restoreActivity: 0,
    createKey: 0,
    revokeKey: 0,
    createDeal: 6,
    updateDeal: 3,
    moveStage: 6,
    deleteDeal: 2,
    restoreDeal: 2,
    createPipeline: 1,
    updatePipeline: 1,
    tick: 4,
    purge: 1
  }
})

const markStage: fc.Arbitrary<MarkStage> = fc.record({
  kind: fc.constant("markStage" as const),
  pipeline: fc.nat(3),
  stage: fc.nat(8),
  outcome: fc.constantFrom("won" as const, "lost" as const, null, null),
  probability: fc.option(fc.constantFrom(...PROBABILITIES), { nil: null })
})

const patchDeal: fc.Arbitrary<PatchDeal> = fc.record({
  kind: fc.constant("patchDeal" as const),
  target: fc.nat(12),
  body: fc.record(
    {
      owner_id: fc.option(fc.constantFrom(...OWNERS), { nil: null }),
      probability: fc.option(fc.constantFrom(...PROBABILITIES), { nil: null }),
      status: fc.constantFrom("open", "won", "lost"),
      lost_reason: fc.constantFrom("price", null),
      value: fc.option(fc.constantFrom(100, 2500, 0.5, 1999.99), { nil: null }),
      currency: fc.option(fc.constantFrom("EUR", "JPY"), { nil: null })
    },
    { requiredKeys: [] }
  )
})

export const figureSteps = (maxLength: number): fc.Arbitrary<ReadonlyArray<FigureStep>> =>
  fc.array(
    fc.oneof(
      { arbitrary: dealCommands as fc.Arbitrary<FigureStep>, weight: 6 },
      { arbitrary: markStage, weight: 2 },
      { arbitrary: patchDeal, weight: 3 }
    ),
    { minLength: 1, maxLength, size: "max" }
  )

/** A run that makes deals of every kind: closed by stage and by status, reopened, owned, deleted and restored, a stage marked. */
export const FIGURE_EXAMPLE: ReadonlyArray<FigureStep> = [
  { kind: "createDeal", ws: 0, body: { name: "A", value: 100, currency: "EUR" }, pipeline: 0, stage: null, contacts: [] },
  { kind: "createDeal", ws: 0, body: { name: "B", value: 2.5 }, pipeline: 0, stage: 2, contacts: [] },
  { kind: "tick", millis: DAY },
  { kind: "moveStage", ws: 0, target: 0, stage: 1, own: true, reason: null },
  { kind: "patchDeal", target: 0, body: { owner_id: "ann", probability: 0.9 } },
  { kind: "tick", millis: 2 * DAY },
  { kind: "moveStage", ws: 0, target: 0, stage: 4, own: true, reason: "signed" },
  { kind: "patchDeal", target: 1, body: { status: "lost", lost_reason: "price" } },
  { kind: "createPipeline", ws: 0, name: "Ann", stages: 3 },
  {
    kind: "createDeal",
    ws: 0,
    body: { name: "C", value: 7, currency: "JPY", expected_close_date: "2026-03-31" },
    pipeline: 1,
    stage: null,
    contacts: []
  },
  { kind: "patchDeal", target: 2, body: { status: "won" } },
  { kind: "markStage", pipeline: 1, stage: 2, outcome: "won", probability: 1 },
  { kind: "tick", millis: DAY },
  { kind: "patchDeal", target: 0, body: { status: "open" } },
  { kind: "deleteDeal", ws: 0, target: 1 },
  { kind: "updatePipeline", ws: 0, target: 0, change: "reverse" },
  { kind: "restoreDeal", ws: 0, target: 1 },
  { kind: "deleteDeal", ws: 0, target: 2 },
  { kind: "purge", millis: 31 * DAY },
  {
    kind: "createDeal",
    ws: 0,
    body: { name: "D", value: 40, currency: "EUR", expected_close_date: "2026-03-01" },
    pipeline: 0,
    stage: null,
    contacts: []
  }
]

const pick = (ids: ReadonlyArray<string>, n: number) => (ids.length === 0 ? "deal_none" : ids[n % ids.length]!)

const pipelinesNow = (engine: EngineService, ctx: RequestContext) =>
  Effect.map(engine.pipelines.list(ctx), (page) => page.data as ReadonlyArray<JsonObject>)

/** Runs a FigureStep: the runner's own commands as the runner runs them, this property's here. */
export const executeFigureStep = (world: World<FigureStep>, step: FigureStep) =>
  Effect.gen(function* () {
    if (step.kind !== "markStage" && step.kind !== "patchDeal") {
      return yield* executeCommand(world as unknown as World<WorkspaceCommand>, step)
    }
    const { ctx, engine } = world
    if (step.kind === "markStage") {
      const pipelines = yield* pipelinesNow(engine, ctx)
      const pipeline = pipelines[step.pipeline % pipelines.length]!
      const stages = pipeline["stages"] as ReadonlyArray<JsonObject>
      const target = stages[step.stage % stages.length]!["id"]
      const body = {
        stages: stages.map((s) =>
          s["id"] === target
            ? { id: s["id"], name: s["name"], outcome: step.outcome, probability: step.probability }
            : { id: s["id"], name: s["name"] }
        )
      }
      yield* attempt(world, step, step.kind, engine.pipelines.update(ctx, pipeline["id"] as string, body, null))
    } else {
      yield* attempt(world, step, step.kind, engine.deals.update(ctx, pick(world.made[0]!.deals, step.target), step.body, null))
    }
    yield* TestClock.adjust(1)
  })

// ---------------------------------------------------------------------------------------------
// The reference: the run's history folded, and the figures by their definitions.

interface Stage {
  readonly id: string
  readonly position: number
  readonly outcome: string | null
  readonly probability: number | null
}

interface Pipeline {
  readonly id: string
  readonly stages: ReadonlyArray<Stage>
}

/** A stage a deal entered: when, where from (the stage it left and when it had entered it). */
interface Entry {
  readonly at: number
  readonly pipeline: string
  readonly stage: string
  readonly from: { readonly pipeline: string; readonly stage: string; readonly entered: number } | null
}

interface Deal {
  readonly fields: Record<string, Json>
  readonly entries: Array<Entry>
  created: number
  entered: number
  deleted: boolean
}

interface History {
  readonly pipelines: ReadonlyMap<string, Pipeline>
  readonly deals: ReadonlyMap<string, Deal>
}

const atOf = (event: StoredEvent) => Date.parse(event.data["at"] as string)

const stagesOf = (value: Json | undefined): ReadonlyArray<Stage> =>
  (Array.isArray(value) ? (value as ReadonlyArray<JsonObject>) : []).map((s) => ({
    id: s["id"] as string,
    position: s["position"] as number,
    outcome: (s["outcome"] as string | undefined) ?? null,
    probability: (s["probability"] as number | undefined) ?? null
  }))

/** The workspace's pipelines and live-or-trashed deals as the events up to `until` leave them; purged deals are gone. */
export const foldHistory = (events: ReadonlyArray<StoredEvent>, until = Number.POSITIVE_INFINITY): History => {
  const pipelines = new Map<string, Pipeline>()
  const deals = new Map<string, Deal>()
  const purged = new Set(events.filter((e) => e.type === "deal.purged" || e.data["redacted"] === true).map((e) => e.streamId))
  for (const event of events) {
    if (purged.has(event.streamId) || atOf(event) > until) continue
    const data = event.data
    switch (event.type) {
      case "pipeline.created":
        pipelines.set(event.streamId, { id: event.streamId, stages: stagesOf(data["stages"]) })
        break
      case "pipeline.updated":
        if (data["stages"] !== undefined) pipelines.set(event.streamId, { id: event.streamId, stages: stagesOf(data["stages"]) })
        break
      case "deal.created": {
        const fields = { ...(data["fields"] as JsonObject) }
        const at = atOf(event)
        deals.set(event.streamId, {
          fields,
          entries: [{ at, pipeline: fields["pipeline_id"] as string, stage: fields["stage_id"] as string, from: null }],
          created: at,
          entered: at,
          deleted: false
        })
        break
      }
      case "deal.updated": {
        const deal = deals.get(event.streamId)!
        Object.assign(deal.fields, data["changed"] as JsonObject)
        break
      }
      case "deal.stage_changed": {
        const deal = deals.get(event.streamId)!
        const at = atOf(event)
        const from = { pipeline: data["from_pipeline_id"] as string, stage: data["from_stage_id"] as string, entered: deal.entered }
        deal.entries.push({ at, pipeline: data["to_pipeline_id"] as string, stage: data["to_stage_id"] as string, from })
        deal.fields["pipeline_id"] = data["to_pipeline_id"]!
        deal.fields["stage_id"] = data["to_stage_id"]!
        for (const key of ["closed_at", "lost_reason"]) if (data[key] !== undefined) deal.fields[key] = data[key]!
        if (data["to_status"] !== undefined) deal.fields["status"] = data["to_status"]!
        deal.entered = at
        break
      }
      case "deal.deleted":
        deals.get(event.streamId)!.deleted = true
        break
      case "deal.restored":
        deals.get(event.streamId)!.deleted = false
        break
    }
  }
  return { pipelines, deals }
}

const num = (value: Json | undefined): number | null => (typeof value === "number" ? value : null)
const str = (value: Json | undefined): string | null => (typeof value === "string" ? value : null)
const hundredths = (n: bigint) => Number(`${n}e-2`)
const meanDays = (total: bigint, count: number) =>
  count === 0 ? null : hundredths(divideRounded(total * 100n, BigInt(count) * BigInt(DAY)))
const ratio = (part: number, whole: number) => (whole === 0 ? null : Number(`${divideRounded(BigInt(part) * 10_000n, BigInt(whole))}e-4`))

/** Money sums as a figure answers them, each deal's amount in its currency (XXX without one). */
const money = () => {
  const value = new Map<string, Decimal>()
  const weighted = new Map<string, Decimal>()
  const add = (into: Map<string, Decimal>, currency: string, amount: Decimal) =>
    into.set(currency, addDecimal(into.get(currency) ?? decimalOf(0), amount))
  return {
    add: (deal: Deal, stageProbability: number | null) => {
      const v = num(deal.fields["value"])
      if (v === null) return
      const currency = str(deal.fields["currency"]) ?? NO_CURRENCY
      add(value, currency, decimalOf(v))
      const p = num(deal.fields["probability"]) ?? stageProbability
      if (p !== null) add(weighted, currency, mulDecimal(decimalOf(v), decimalOf(p)))
    },
    value: () => amountsByCurrency(value),
    weighted: () => amountsByCurrency(weighted)
  }
}

const live = (history: History, owner: string | null) =>
  [...history.deals].filter(([, d]) => !d.deleted && (owner === null || d.fields["owner_id"] === owner))

const byPosition = (pipeline: Pipeline) => [...pipeline.stages].sort((a, b) => a.position - b.position)

export const summaryOf = (history: History, pipeline: Pipeline, owner: string | null, instant: number): JsonObject => {
  const deals = live(history, owner).filter(([, d]) => d.fields["pipeline_id"] === pipeline.id)
  const probability = (stageId: Json | undefined) => pipeline.stages.find((s) => s.id === stageId)?.probability ?? null
  const open = money()
  for (const [, d] of deals) if (d.fields["status"] === "open") open.add(d, probability(d.fields["stage_id"]))
  return {
    pipeline_id: pipeline.id,
    as_of: new Date(instant).toISOString(),
    stages: byPosition(pipeline).map((stage) => {
      const inStage = deals.filter(([, d]) => d.fields["stage_id"] === stage.id)
      const sums = money()
      for (const [, d] of inStage) sums.add(d, stage.probability)
      const since = inStage.reduce((total, [, d]) => total + BigInt(instant - d.entered), 0n)
      return {
        stage_id: stage.id,
        count: inStage.length,
        value: sums.value(),
        weighted_value: sums.weighted(),
        average_days_in_stage: meanDays(since, inStage.length)
      }
    }),
    open: { count: deals.filter(([, d]) => d.fields["status"] === "open").length, value: open.value(), weighted_value: open.weighted() }
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! * 2 : sorted[middle - 1]! + sorted[middle]!
}

export const conversionOf = (history: History, pipeline: Pipeline, owner: string | null, from: string, to: string): JsonObject => {
  const start = Date.parse(`${from}T00:00:00.000Z`)
  const end = Date.parse(`${to}T00:00:00.000Z`)
  const deals = live(history, owner)
  const stageOf = (id: string) => pipeline.stages.find((s) => s.id === id)
  /** Entering `target` advances from `stage`: an open stage of higher position, or a won one, of the pipeline. */
  const advances = (stage: Stage, target: string) => {
    const t = stageOf(target)
    return t !== undefined && (t.outcome === "won" || (t.outcome === null && t.position > stage.position))
  }
  const stages = byPosition(pipeline).map((stage) => {
    let entered = 0
    let advanced = 0
    const stays: Array<number> = []
    for (const [, d] of deals) {
      const first = d.entries.findIndex((e) => e.stage === stage.id && e.at >= start && e.at < end)
      if (first >= 0) {
        entered++
        if (d.entries.some((e, i) => i > first && e.at < end && advances(stage, e.stage))) advanced++
      }
      for (const e of d.entries) if (e.from?.stage === stage.id && e.at >= start && e.at < end) stays.push(e.at - e.from.entered)
    }
    const total = stays.reduce((sum, d) => sum + BigInt(d), 0n)
    return {
      stage_id: stage.id,
      entered,
      advanced,
      conversion_rate: ratio(advanced, entered),
      average_days: meanDays(total, stays.length),
      median_days: stays.length === 0 ? null : hundredths(divideRounded(BigInt(median(stays)) * 100n, 2n * BigInt(DAY)))
    }
  })
  const closed = (status: string) =>
    deals.filter(([, d]) => {
      const at = str(d.fields["closed_at"])
      return (
        d.fields["pipeline_id"] === pipeline.id &&
        d.fields["status"] === status &&
        at !== null &&
        Date.parse(at) >= start &&
        Date.parse(at) < end
      )
    })
  const won = closed("won")
  const lost = closed("lost")
  const cycle = won.reduce((total, [, d]) => total + BigInt(Date.parse(d.fields["closed_at"] as string) - d.created), 0n)
  return {
    pipeline_id: pipeline.id,
    from,
    to,
    stages,
    won: won.length,
    lost: lost.length,
    win_rate: ratio(won.length, won.length + lost.length),
    average_cycle_days: meanDays(cycle, won.length)
  }
}

export const forecastOf = (
  history: History,
  pipelineId: string | null,
  owner: string | null,
  from: string,
  to: string,
  interval: "month" | "quarter"
): JsonObject => {
  const period = (month: string) => (interval === "month" ? month : `${month.slice(0, 4)}-Q${Math.ceil(Number(month.slice(5, 7)) / 3)}`)
  const periods: Array<string> = []
  for (let t = Date.parse(`${from}T00:00:00.000Z`); t < Date.parse(`${to}T00:00:00.000Z`); t += DAY) {
    const p = period(new Date(t).toISOString().slice(0, 7))
    if (!periods.includes(p)) periods.push(p)
  }
  const probability = (d: Deal) =>
    history.pipelines.get(d.fields["pipeline_id"] as string)?.stages.find((s) => s.id === d.fields["stage_id"])?.probability ?? null
  const deals = live(history, owner).filter(([, d]) => pipelineId === null || d.fields["pipeline_id"] === pipelineId)
  const open = new Map(periods.map((p) => [p, { count: 0, sums: money() }]))
  const won = new Map(periods.map((p) => [p, { count: 0, sums: money() }]))
  const unscheduled = { count: 0, sums: money() }
  for (const [, d] of deals) {
    const date = str(d.fields["expected_close_date"])
    const closedAt = str(d.fields["closed_at"])
    if (d.fields["status"] === "open") {
      const into = date === null ? unscheduled : date >= from && date < to ? open.get(period(date.slice(0, 7))) : undefined
      if (into !== undefined) {
        into.count++
        into.sums.add(d, probability(d))
      }
    } else if (d.fields["status"] === "won" && closedAt !== null && closedAt.slice(0, 10) >= from && closedAt.slice(0, 10) < to) {
      const into = won.get(period(closedAt.slice(0, 7)))!
      into.count++
      into.sums.add(d, probability(d))
    }
  }
  return {
    interval,
    buckets: periods.map((p) => ({
      period: p,
      open: { count: open.get(p)!.count, value: open.get(p)!.sums.value(), weighted_value: open.get(p)!.sums.weighted() },
      won: { count: won.get(p)!.count, value: won.get(p)!.sums.value() }
    })),
    unscheduled: { count: unscheduled.count, value: unscheduled.sums.value(), weighted_value: unscheduled.sums.weighted() }
  }
}

// ---------------------------------------------------------------------------------------------
// The invariant.

const dateOf = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/** The engine's answer, or the tag of its refusal. */
const answerOf = <E extends { readonly _tag: string }>(call: Effect.Effect<JsonObject, E>) =>
  Effect.catch(call, (error: E) => Effect.succeed({ refused: error._tag } as JsonObject))

const figuresCheck = (world: World<FigureStep>) =>
  Effect.gen(function* () {
    const { ctx, engine } = world
    const events = (yield* world.events).filter((e) => e.metadata.workspaceId === ctx.workspaceId)
    const history = foldHistory(events)
    const now = yield* Clock.currentTimeMillis
    const problems: Array<string> = []
    const compare = (what: string, got: JsonObject, want: JsonObject) => {
      if (!isDeepStrictEqual(got, want))
        problems.push(`${what}: the engine answers ${JSON.stringify(got)}, the fold ${JSON.stringify(want)}`)
    }
    // Windows: the whole run so far, and the day of the middle event.
    const middle = events.length === 0 ? now : atOf(events[Math.floor(events.length / 2)]!)
    const windows = [
      [dateOf(START), dateOf(now + DAY)],
      [dateOf(middle), dateOf(middle + DAY)]
    ] as const
    for (const pipeline of history.pipelines.values()) {
      for (const owner of [null, "ann"]) {
        const params = owner === null ? {} : { owner_id: owner }
        const summary = yield* answerOf(engine.pipelines.summary(ctx, pipeline.id, params))
        compare(`summary of ${pipeline.id} (${owner ?? "all"})`, summary, summaryOf(history, pipeline, owner, now))
        for (const [from, to] of windows) {
          const conversion = yield* answerOf(engine.pipelines.conversion(ctx, pipeline.id, { ...params, from, to }))
          compare(
            `conversion of ${pipeline.id} ${from}..${to} (${owner ?? "all"})`,
            conversion,
            conversionOf(history, pipeline, owner, from, to)
          )
        }
      }
      // As of the middle event: the pipeline then (not found before it was made), its deals then.
      const asOf = new Date(middle).toISOString()
      const then = foldHistory(events, middle)
      const past = then.pipelines.get(pipeline.id)
      const summaryThen = yield* answerOf(engine.pipelines.summary(ctx, pipeline.id, { as_of: asOf }))
      compare(
        `summary of ${pipeline.id} as of ${asOf}`,
        summaryThen,
        past === undefined ? { refused: "NotFound" } : summaryOf(then, past, null, middle)
      )
    }
    for (const pipelineId of [null, ...history.pipelines.keys()]) {
      // Windows cut inside months, of whole months (PostgreSQL reads those from its totals), within
      // one month, and over two months with no whole one (read a month at a time): the deals close
      // on START's day, and their expected dates run from it for 700 days.
      const windows = [
        [dateOf(START - 40 * DAY), dateOf(now + 60 * DAY), "month"],
        [dateOf(START - 40 * DAY), dateOf(now + 60 * DAY), "quarter"],
        ["2026-01-01", "2026-04-01", "month"],
        [dateOf(middle), dateOf(middle + 2 * DAY), "month"],
        [dateOf(START - 17 * DAY), dateOf(START + 19 * DAY), "month"],
        [dateOf(START + 45 * DAY), dateOf(START + 78 * DAY), "month"]
      ] as const
      for (const [from, to, interval] of windows) {
        for (const owner of [null, "ann"]) {
          const params = {
            from,
            to,
            interval,
            ...(pipelineId === null ? {} : { pipeline_id: pipelineId }),
            ...(owner === null ? {} : { owner_id: owner })
          }
          compare(
            `forecast of ${pipelineId ?? "all"} ${from}..${to} by ${interval} (${owner ?? "all"})`,
            yield* answerOf(engine.deals.forecast(ctx, params)),
            forecastOf(history, pipelineId, owner, from, to, interval)
          )
        }
      }
    }
    return problems
  })

export const figuresEqualTheFold = invariant("every pipeline figure equals a fold of the history", figuresCheck)

/** The same after `dealstream rebuild`, which writes every figure document anew (and, on PostgreSQL, their totals). */
export const figuresAfterRebuild = invariant(
  "after a rebuild, every pipeline figure still equals a fold of the history",
  (world) => Effect.flatMap(rebuildDocuments().pipe(Effect.provideService(Storage, world.storage)), () => figuresCheck(world)),
  "end"
)

/** The property on a storage: runs of at most `maxLength` commands, the example first. */
export const assertFigures = (options: {
  readonly storage: Parameters<typeof assertModel<FigureStep>>[0]["storage"]
  readonly storagePerRun?: boolean
  readonly numRuns: number
  readonly maxLength: number
}) =>
  assertModel<FigureStep>({
    storage: options.storage,
    ...(options.storagePerRun === undefined ? {} : { storagePerRun: options.storagePerRun }),
    commands: figureSteps(options.maxLength),
    execute: executeFigureStep,
    examples: [FIGURE_EXAMPLE],
    invariants: [figuresEqualTheFold, figuresAfterRebuild],
    numRuns: options.numRuns
  })
