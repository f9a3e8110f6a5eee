import {
  type DealEvent,
  Engine,
  EngineLive,
  type EngineService,
  IdsLive,
  type JsonObject,
  type RequestContext,
  Storage,
  timelineEntryOf
} from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Result } from "effect"
import { testDatabase } from "../support/pg.js"
import { noWebhookSending } from "../support/engine.js"

/**
 * Two hosts, each an engine over its own PgStorage pool, on one database: correctness must come
 * from the database alone (row locks on stream versions, the unique index), never from either
 * process's memory.
 */

const DEALS = 4
const MOVES_PER_HOST = 12
const EDITS_PER_HOST = 10
const EMAILS = ["ann@x.io", "ANN@x.io", "bob@y.io", "Bob@Y.io", "cleo@z.io", "CLEO@z.io"]

// Layer.fresh: Effect 4 memoizes layers across builds in one fiber tree, and each host must be an
// engine and a pool of its own.
const host = (url: string) =>
  Effect.map(
    Layer.build(
      Layer.fresh(
        EngineLive.pipe(
          Layer.provideMerge(PgStorage.layer({ url, maxConnections: 6 })),
          Layer.provide(IdsLive),
          Layer.provide(noWebhookSending)
        )
      )
    ),
    (context) => ({ ...Context.get(context, Engine), storage: Context.get(context, Storage) })
  )

const ctx: RequestContext = { workspaceId: "ws_race", requestId: null, actor: "race" }

/** Every page of a deal's timeline. */
const timelineOf = (engine: EngineService, dealId: string) =>
  Effect.gen(function* () {
    const entries: Array<JsonObject> = []
    let cursor: string | undefined
    for (;;) {
      const page = yield* engine.deals.timeline(ctx, dealId, cursor === undefined ? { limit: "100" } : { limit: "100", cursor })
      entries.push(...page.data)
      if (page.next_cursor === null) return entries
      cursor = page.next_cursor
    }
  })

/** A write either took effect (Success) or was refused as a conflict (Failure); anything else fails the test. */
const acknowledged = <A, E extends { readonly _tag: string }>(write: Effect.Effect<A, E>) =>
  Effect.result(write).pipe(
    Effect.flatMap((result) =>
      Result.isFailure(result) && result.failure._tag !== "Conflict" ? Effect.die(result.failure) : Effect.succeed(result)
    )
  )

describe("two hosts on one database", () => {
  it.live(
    "keep timelines chained, lose no update and keep one live contact per email",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const [a, b] = yield* Effect.all([host(url), host(url)], { concurrency: "unbounded" })
        expect(a.storage).not.toBe(b.storage)

        // Both hosts meet a new workspace at once: exactly one default pipeline results.
        const [seenByA, seenByB] = yield* Effect.all([a.pipelines.list(ctx), b.pipelines.list(ctx)], { concurrency: "unbounded" })
        expect(seenByA.data.map((p) => p["id"])).toEqual(seenByB.data.map((p) => p["id"]))
        expect(seenByA.data).toHaveLength(1)
        const pipeline = seenByA.data[0]!
        const stages = (pipeline["stages"] as ReadonlyArray<JsonObject>).map((s) => s["id"] as string)

        for (const def of [
          { key: "by_a", type: "number" },
          { key: "by_b", type: "number" }
        ]) {
          yield* a.customFields.create(ctx, { object: "deal", label: def.key, ...def })
        }
        const deals: Array<string> = []
        for (let i = 0; i < DEALS; i++) {
          const deal = yield* a.deals.create(ctx, { name: `Deal ${i}`, pipeline_id: pipeline["id"] })
          deals.push(deal.data["id"] as string)
        }

        // Stage moves from both hosts, and each host counting up its own field of every deal.
        const moves = (engine: EngineService, seed: number) =>
          Effect.forEach(
            Array.from({ length: MOVES_PER_HOST * DEALS }, (_, n) => n),
            (n) => acknowledged(engine.deals.moveStage(ctx, deals[n % DEALS]!, { stage_id: stages[(n * seed + n) % stages.length] }, null)),
            { concurrency: 4 }
          )
        const edits = (engine: EngineService, field: "by_a" | "by_b") =>
          Effect.forEach(
            deals,
            (dealId) =>
              Effect.gen(function* () {
                // Sequential per deal and host: a later acknowledged value supersedes an earlier one.
                let last: number | null = null
                for (let n = 1; n <= EDITS_PER_HOST; n++) {
                  const result = yield* acknowledged(engine.deals.update(ctx, dealId, { [field]: n }, null))
                  if (Result.isSuccess(result)) last = n
                }
                return [dealId, last] as const
              }),
            { concurrency: "unbounded" }
          )
        const creates = (engine: EngineService) =>
          Effect.forEach(EMAILS, (email) => acknowledged(engine.contacts.create(ctx, { email })), { concurrency: "unbounded" })

        const [movesA, movesB, editsA, editsB, createsA, createsB] = yield* Effect.all(
          [moves(a, 1), moves(b, 2), edits(a, "by_a"), edits(b, "by_b"), creates(a), creates(b)],
          { concurrency: "unbounded" }
        )

        // Timelines: one entry per acknowledged real move, chained from → to in commit order (the
        // deal's stream, read through the other host), ending at the current stage.
        const entryIds = [...movesA, ...movesB].flatMap((result) => {
          const entry = Result.isSuccess(result) ? (result.success.data["timeline_entry"] as JsonObject | null) : null
          return entry === null ? [] : [entry["id"]]
        })
        const timelineIds: Array<unknown> = []
        for (const dealId of deals) {
          const deal = yield* b.deals.get(ctx, dealId)
          const listed = yield* timelineOf(a, dealId)
          const timeline = (yield* b.storage.readStream(dealId)).flatMap((event) => {
            const entry = timelineEntryOf(dealId, event as unknown as DealEvent)
            return entry === null ? [] : [entry]
          })
          // The list holds the same entries, but ordered by changed_at, which core takes before the
          // command's retries: a move retried after losing a race keeps its earlier time, so that
          // order need not chain under contention (a core matter, reported, not storage's).
          expect(listed.map((e) => e["id"]).sort()).toEqual(timeline.map((e) => e["id"]).sort())
          timelineIds.push(...timeline.map((e) => e["id"]))
          timeline.forEach((entry, i) => {
            expect(entry["from_stage_id"]).not.toBe(entry["to_stage_id"])
            if (i > 0) expect(entry["from_stage_id"]).toBe(timeline[i - 1]!["to_stage_id"])
          })
          expect(timeline[0]?.["from_stage_id"] ?? stages[0]).toBe(stages[0])
          expect(timeline[timeline.length - 1]?.["to_stage_id"] ?? stages[0]).toBe(deal.data["stage_id"])
        }
        expect([...timelineIds].sort()).toEqual([...entryIds].sort())

        // No lost update: each host's last acknowledged value of its own field is the one stored.
        for (const [dealId, last] of editsA) expect((yield* a.deals.get(ctx, dealId)).data["by_a"] ?? null).toBe(last)
        for (const [dealId, last] of editsB) expect((yield* b.deals.get(ctx, dealId)).data["by_b"] ?? null).toBe(last)
        expect(editsA.every(([, last]) => last !== null)).toBe(true)

        // Exactly one live contact per email, and it is the one every refusal named.
        const contacts = (yield* a.contacts.list(ctx, { limit: "100" })).data
        const byEmail = new Map<string, Array<JsonObject>>()
        for (const contact of contacts) {
          const key = String(contact["email"]).toLowerCase()
          byEmail.set(key, [...(byEmail.get(key) ?? []), contact])
        }
        expect([...byEmail.keys()].sort()).toEqual(["ann@x.io", "bob@y.io", "cleo@z.io"])
        for (const holders of byEmail.values()) expect(holders).toHaveLength(1)
        const created = [...createsA, ...createsB].filter(Result.isSuccess).map((r) => r.success.data["id"])
        expect([...created].sort()).toEqual(contacts.map((c) => c["id"]).sort())
        for (const refusal of [...createsA, ...createsB].filter(Result.isFailure)) {
          const holder = refusal.failure._tag === "Conflict" ? refusal.failure.details[0]?.id : undefined
          expect(contacts.map((c) => c["id"])).toContain(holder)
        }
      }).pipe(Effect.scoped),
    60_000
  )
})
