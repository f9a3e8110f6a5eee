import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { contactAggregate } from "../../contact/aggregate.js"
import type { StorageService } from "../../storage/Storage.js"
import type { RequestContext } from "../contract/Engine.js"
import { makeSettingsCache, settingsOf } from "./settings.js"
import { emptyState, keep, makeStreamStates } from "./streamStates.js"

// Issue 30: reads may be served by a replica that is behind what this host already decided on.
// What the host keeps between requests never goes back to such an older state.

const ctx: RequestContext = { workspaceId: "ws_kept", requestId: null, actor: null }

const at = (version: number) => ({ ...emptyState(contactAggregate), version })

describe("the kept stream states", () => {
  it("keep a newer state, never an older one over it", () => {
    const states = makeStreamStates()
    keep(states, contactAggregate, ctx, "con_1", at(5))
    keep(states, contactAggregate, ctx, "con_1", at(3))
    expect(states.get("con_1")?.stream.version).toBe(5)
    keep(states, contactAggregate, ctx, "con_1", at(6))
    expect(states.get("con_1")?.stream.version).toBe(6)
    // A purged stream (version -1) is forgotten whatever was kept.
    keep(states, contactAggregate, ctx, "con_1", at(-1))
    expect(states.get("con_1")).toBeUndefined()
  })
})

describe("the kept settings", () => {
  it.effect("keep the version a read verified, unless an older one than kept", () =>
    Effect.gen(function* () {
      const cache = makeSettingsCache()
      // Never asked: the versions are given as a record read gives them. The first part used reads
      // the version into the view (and the cache); reading the part itself then fails, which is moot.
      const readAt = (version: number) =>
        Effect.gen(function* () {
          const view = settingsOf({} as StorageService, cache, ctx, { version })
          yield* Effect.exit(
            view.pipeline("pip_none").pipe(
              Effect.orDie,
              Effect.catchDefect(() => Effect.void)
            )
          )
          return view
        })
      yield* readAt(7)
      expect(cache.get(ctx.workspaceId)?.version).toBe(7)
      const older = yield* readAt(4)
      expect(older.read()).toEqual({ workspaceId: ctx.workspaceId, version: 4 })
      expect(cache.get(ctx.workspaceId)?.version).toBe(7)
      yield* readAt(9)
      expect(cache.get(ctx.workspaceId)?.version).toBe(9)
    })
  )
})
