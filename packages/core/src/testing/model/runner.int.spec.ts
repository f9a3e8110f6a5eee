import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Engine, type EngineService } from "../../engine/contract/Engine.js"
import { makeEngine } from "../../engine/EngineLive.js"
import type { JsonObject } from "../../json.js"
import { type Commit, Storage, type StorageService } from "../../storage/Storage.js"
import { EVERY_KIND, workspaceCommands } from "./commands.js"
import { everyDeal, standardInvariants } from "./invariants.js"
import { checkModel } from "./runner.js"

/** EngineLive with some of its operations replaced: a planted bug the invariants must find. */
const plant = (
  patch: (engine: EngineService, storage: StorageService) => Partial<{ [K in keyof EngineService]: Partial<EngineService[K]> }>
) =>
  Layer.effect(
    Engine,
    Effect.gen(function* () {
      const engine = yield* makeEngine
      const changed = patch(engine, yield* Storage)
      return Object.fromEntries(
        Object.entries(engine).map(([key, part]) => [key, key in changed ? { ...part, ...changed[key as keyof EngineService] } : part])
      ) as unknown as EngineService
    })
  )

/**
 * EngineLive on a storage whose commit is changed before it is stored: a planted bug below the
 * engine, where the engine's own operations cannot reach it.
 */
const plantInCommit = (change: (commit: Commit) => Commit) =>
  Layer.effect(Engine, makeEngine).pipe(
    Layer.provide(
      Layer.effect(
        Storage,
        Effect.map(Storage, (storage): StorageService => ({ ...storage, commit: (commit) => storage.commit(change(commit)) }))
      )
    )
  )

const upsert = (
  storage: StorageService,
  collection: "deal" | "timeline_entry",
  workspaceId: string,
  id: string,
  data: JsonObject,
  version: number
) =>
  storage
    .commit({
      streams: [],
      documents: [{ _tag: "Upsert", collection, workspaceId, id, version, deletedAt: null, uniqueKey: null, searchWords: [], data }]
    })
    .pipe(Effect.orDie)

describe("checkModel", () => {
  it("runs random command sequences on memory storage and keeps every standard invariant", async () => {
    const accepted: Record<string, number> = {}
    const result = await checkModel({
      storage: MemoryStorage.layer,
      numRuns: 25,
      commands: workspaceCommands({
        weights: { eraseContact: 1, mergeContacts: 2, unmergeContact: 2, mergeCompanies: 1, unmergeCompany: 1 }
      }),
      examples: [EVERY_KIND],
      afterRun: (world) =>
        Effect.sync(() => {
          for (const [kind, n] of Object.entries(world.accepted)) accepted[kind] = (accepted[kind] ?? 0) + n
        })
    })
    if (result.failed) throw new Error(result.report)
    expect(result.numRuns).toBe(25)
    // The runs did something: every kind of command was accepted in some run.
    expect(Object.keys(accepted).sort()).toEqual([
      "companyBatch",
      "contactBatch",
      "createActivity",
      "createCompany",
      "createContact",
      "createDeal",
      "createKey",
      "createPipeline",
      "defineField",
      "deleteActivity",
      "deleteCompany",
      "deleteContact",
      "deleteDeal",
      "deleteField",
      "eraseContact",
      "mergeCompanies",
      "mergeContacts",
      "moveStage",
      "purged",
      "restoreActivity",
      "restoreCompany",
      "restoreContact",
      "restoreDeal",
      "revokeKey",
      "unmergeCompany",
      "unmergeContact",
      "updateActivity",
      "updateCompany",
      "updateContact",
      "updateDeal",
      "updatePipeline"
    ])
    // About 1 s alone (seeds 1 to 445 each took at most 1.4 s); a clean-clone CI run, with the
    // PostgreSQL suites beside it, once took more than 60 s.
  }, 180_000)

  // Each invariant against an engine with a bug planted for it: the runner must find it and shrink
  // the sequence that shows it to a few commands.
  const planted = [
    {
      invariant: "delete then restore is identity",
      engine: plant((engine) => ({
        deals: {
          restore: (ctx, id) =>
            Effect.andThen(engine.deals.restore(ctx, id), engine.deals.update(ctx, id, { name: "Touched on restore" }, null))
        }
      }))
    },
    {
      invariant: "stored documents equal the log's projection",
      engine: plant((engine, storage) => ({
        deals: {
          create: (ctx, body) =>
            Effect.tap(engine.deals.create(ctx, body), (deal) =>
              upsert(
                storage,
                "deal",
                ctx.workspaceId,
                deal.data["id"] as string,
                { ...deal.data, name: "Not what the event says" },
                deal.version
              )
            )
        }
      }))
    },
    {
      invariant: "timelines chain and end in the deal's stage",
      engine: plant((engine, storage) => ({
        deals: {
          moveStage: (ctx, id, body, ifMatch) =>
            Effect.tap(engine.deals.moveStage(ctx, id, body, ifMatch), (moved) => {
              const entry = moved.data["timeline_entry"] as JsonObject | null
              return entry === null
                ? Effect.void
                : upsert(
                    storage,
                    "timeline_entry",
                    ctx.workspaceId,
                    entry["id"] as string,
                    { ...entry, from_stage_id: entry["to_stage_id"]! },
                    1
                  )
            })
        }
      }))
    },
    {
      invariant: "associations never show a deleted record",
      engine: plant((engine) => ({
        deals: {
          list: (ctx, params) =>
            Effect.map(engine.deals.list(ctx, params), (page) => ({
              ...page,
              data: page.data.map((deal) => ({ ...deal, contact_ids: [...(deal["contact_ids"] as Array<string>), "con_trashed"] }))
            }))
        }
      }))
    },
    {
      // Only an atomic batch puts several records' streams, each with its document, in one commit
      // (a workspace's first commit appends two streams but stores the pipeline's documents only).
      invariant: "stored documents equal the log's projection",
      bug: "an atomic batch's commit drops one operation's documents",
      engine: plantInCommit((commit) => {
        const written = commit.streams.filter((stream) => commit.documents.some((doc) => doc.id === stream.streamId))
        if (written.length < 2) return commit
        const dropped = written.at(-1)!.streamId
        return { ...commit, documents: commit.documents.filter((doc) => doc.id !== dropped) }
      })
    },
    {
      invariant: "a refused command records nothing",
      engine: plant((engine) => ({
        contacts: {
          restore: (ctx, id) =>
            Effect.tapError(engine.contacts.restore(ctx, id), () =>
              Effect.ignore(engine.contacts.create(ctx, { email: `${id}@planted.io` }))
            )
        }
      }))
    }
  ] as const

  for (const { engine, invariant, ...entry } of planted) {
    const bug = "bug" in entry ? ` (${entry.bug})` : ""
    it(`finds a planted break of "${invariant}"${bug} and shrinks it to a few commands`, async () => {
      // Only this invariant, so that it is the one that finds the bug.
      const only = standardInvariants.filter((i) => i.name === invariant)
      expect(only).toHaveLength(1)
      // A fixed seed: where the shrinker settles varies from run to run, and the bound must hold every time.
      const result = await checkModel({
        storage: MemoryStorage.layer,
        engine,
        invariants: only,
        numRuns: 200,
        seed: 7,
        commands: workspaceCommands({ maxLength: 30 })
      })
      expect(result.failed).toBe(true)
      if (!result.failed) return
      expect(result.violation.invariant, result.report).toBe(invariant)
      expect(result.counterexample.length, result.report).toBeLessThanOrEqual(4)
    }, 60_000)
  }

  it("checks invariants of one's own over every live deal, with the stage it sits in", async () => {
    const result = await checkModel({
      storage: MemoryStorage.layer,
      numRuns: 100,
      seed: 7,
      invariants: [everyDeal("no deal is in Won", ({ stage }) => (stage?.name === "Won" ? "is in Won" : undefined))]
    })
    expect(result.failed).toBe(true)
    if (!result.failed) return
    expect(result.violation.problems[0]).toMatch(/^deal deal_\w+: is in Won$/)
    expect(result.counterexample.length, result.report).toBeLessThanOrEqual(3)
    expect(result.report).toContain('1. {"kind":')
  }, 60_000)
})
