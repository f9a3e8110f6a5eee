import { Engine, type EngineService, type RequestContext } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { engineOn, MemoryEngineLive } from "./HostLive.js"

// Effect 4 memoizes layers across provides: two engines made of the same module-level layers
// (EngineLive, IdsLive, MemoryStorage.layer) were one engine with one memory.

const ctx: RequestContext = { workspaceId: "acme", requestId: null, actor: "test" }

const contactEmails = Effect.flatMap(Effect.service(Engine), (engine) => engine.contacts.list(ctx, {})).pipe(
  Effect.map((page) => page.data.map((contact) => contact["email"]))
)

const createContact = (email: string) => Effect.flatMap(Effect.service(Engine), (engine) => engine.contacts.create(ctx, { email }))

class First extends Context.Service<First, EngineService>()("test/First") {}
class Second extends Context.Service<Second, EngineService>()("test/Second") {}

describe("the bundled engine layers", () => {
  for (const [name, make] of [
    ["MemoryEngineLive", () => MemoryEngineLive()],
    ["engineOn(memory)", () => engineOn("memory")]
  ] as const) {
    it.effect(`${name}: each call is an engine of its own, even provided one inside the other`, () =>
      Effect.gen(function* () {
        const inner = contactEmails.pipe(Effect.provide(make()))
        const seen = yield* Effect.gen(function* () {
          yield* createContact("outer@example.com")
          return { inner: yield* inner, outer: yield* contactEmails }
        }).pipe(Effect.provide(make()))
        expect(seen).toEqual({ inner: [], outer: ["outer@example.com"] })
      })
    )

    it.effect(`${name}: one value used twice in a composition is one engine`, () =>
      Effect.gen(function* () {
        const engine = make()
        const both = Layer.merge(
          Layer.effect(First, Effect.service(Engine)).pipe(Layer.provide(engine)),
          Layer.effect(Second, Effect.service(Engine)).pipe(Layer.provide(engine))
        )
        const [first, second] = yield* Effect.all([Effect.service(First), Effect.service(Second)]).pipe(Effect.provide(both))
        expect(first).toBe(second)
      })
    )
  }
})
