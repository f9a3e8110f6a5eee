import { expect, type Vitest } from "@effect/vitest"
import { Effect, Fiber, Option, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import { type SettingsChange, Storage, type StreamAppend } from "../storage/Storage.js"
import { event, fresh, upsert } from "./storageFixtures.js"

/** An append of one event to a settings stream (custom fields, a pipeline, a webhook) of `workspaceId`. */
const settingsAppend = (workspaceId: string, streamId: string, expectedVersion = 0): StreamAppend => ({
  streamId,
  expectedVersion,
  events: [event(workspaceId, "x.settings", { v: expectedVersion + 1 }, expectedVersion)],
  settings: true
})

/**
 * The settings version, its check at commit and its change notices (part of the storage contract,
 * run inside `storageContractSuite`'s layer).
 */
export const settingsContractCases = (it: Vitest.MethodsNonLive<Storage>) => {
  it.effect("moves a workspace's settings version on once per commit to its settings streams", () =>
    Effect.gen(function* () {
      const storage = yield* Storage
      const [ws, other] = [fresh("ws"), fresh("ws")]
      const [fields, pipeline] = [fresh("fields"), fresh("pip")]
      const versions = Effect.all([storage.settingsVersion(ws), storage.settingsVersion(other)])
      expect(yield* versions).toEqual([0, 0])
      yield* storage.commit({ streams: [settingsAppend(ws, fields)], documents: [] })
      expect(yield* versions).toEqual([1, 0])
      // an append not marked settings, or marked settings: false, leaves it where it is
      const contact = fresh("con")
      yield* storage.commit({ streams: [{ streamId: contact, expectedVersion: 0, events: [event(ws, "x.created")] }], documents: [] })
      yield* storage.commit({
        streams: [{ streamId: contact, expectedVersion: 1, events: [event(ws, "x.updated")], settings: false }],
        documents: [upsert(ws, contact, { name: "c" })]
      })
      expect(yield* versions).toEqual([1, 0])
      // another workspace's settings are its own
      yield* storage.commit({ streams: [settingsAppend(other, fresh("fields"))], documents: [] })
      expect(yield* versions).toEqual([1, 1])
      // two settings streams of one commit move it on once
      yield* storage.commit({ streams: [settingsAppend(ws, fields, 1), settingsAppend(ws, pipeline)], documents: [] })
      expect(yield* versions).toEqual([2, 1])
      yield* storage.commit({ streams: [settingsAppend(ws, pipeline, 1)], documents: [] })
      expect(yield* versions).toEqual([3, 1])
    })
  )

  it.effect("refuses a commit whose settings read is stale and stores nothing of it; a current one passes", () =>
    Effect.gen(function* () {
      const storage = yield* Storage
      const [ws, unknown] = [fresh("ws"), fresh("ws")]
      const fields = fresh("fields")
      yield* storage.commit({ streams: [settingsAppend(ws, fields)], documents: [] })
      const deal = fresh("deal")
      const decided = (version: number) =>
        storage.commit({
          streams: [{ streamId: deal, expectedVersion: 0, events: [event(ws, "x.created")] }, settingsAppend(ws, fields, 1)],
          documents: [upsert(ws, deal, { name: "d" }, { collection: "deal" })],
          settingsRead: [
            { workspaceId: unknown, version: 0 },
            { workspaceId: ws, version }
          ]
        })
      const stale = yield* Effect.result(decided(0))
      expect(Result.isFailure(stale) && stale.failure._tag).toBe("VersionConflict")
      if (Result.isFailure(stale) && stale.failure._tag === "VersionConflict") {
        expect({ ...stale.failure }).toEqual({
          _tag: "VersionConflict",
          streamId: `settings:${ws}`,
          expectedVersion: 0,
          actualVersion: 1
        })
      }
      expect(yield* storage.readStream(deal)).toEqual([])
      expect((yield* storage.readStream(fields)).length).toBe(1)
      expect(yield* storage.getDocument("deal", ws, deal)).toBeNull()
      expect(yield* storage.settingsVersion(ws)).toBe(1)
      // read at the current version (and an unknown workspace's at 0), the same commit goes through
      const { events } = yield* decided(1)
      expect(events.map((e) => e.streamId)).toEqual([deal, fields])
      expect((yield* storage.getDocument("deal", ws, deal))?.data).toEqual({ id: deal, name: "d" })
      expect(yield* storage.settingsVersion(ws)).toBe(2)
      expect(yield* storage.settingsVersion(unknown)).toBe(0)
    })
  )

  it.effect("tells its listeners of a commit to a workspace's settings", () =>
    TestClock.withLive(
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = fresh("ws")
        const fields = fresh("fields")
        const changed: SettingsChange = { _tag: "Changed", workspaceId: ws }
        const listener = yield* Effect.forkChild(
          Stream.runHead(Stream.filter(storage.settingsChanges, (change) => change._tag === "Changed" && change.workspaceId === ws))
        )
        // A subscription starts listening asynchronously (on PostgreSQL, LISTEN on a connection of its
        // own): commit settings changes until the listener has heard one.
        let version = 0
        const committer = yield* Effect.forkChild(
          Effect.forever(
            Effect.suspend(() => storage.commit({ streams: [settingsAppend(ws, fields, version)], documents: [] })).pipe(
              Effect.andThen(Effect.sync(() => version++)),
              Effect.andThen(Effect.sleep("100 millis"))
            )
          )
        )
        const heard = yield* Fiber.join(listener).pipe(Effect.timeout("20 seconds"))
        yield* Fiber.interrupt(committer)
        expect(heard).toEqual(Option.some(changed))
        expect(yield* storage.settingsVersion(ws)).toBeGreaterThanOrEqual(1)
      })
    )
  )
}
