import { Engine } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { CrmLive } from "./CrmLive.js"
import { importDeals } from "./program.js"

describe("dealstream with Effect layers", () => {
  it.effect("imports deals through the engine layer, its rule refusing the one over the limit", () =>
    Effect.gen(function* () {
      const outcome = yield* importDeals([
        { name: "Pilot", value: 5000 },
        { name: "Moonshot", value: 5_000_000 }
      ])
      expect(outcome[0]).toMatchObject({ name: "Pilot", id: expect.stringMatching(/^deal_/) })
      expect(outcome[1]).toEqual({ name: "Moonshot", refused: "value is over our limit of 1,000,000" })
      const listed = yield* Effect.flatMap(Engine, (crm) => crm.deals.list({ workspaceId: "acme", requestId: null, actor: null }, {}))
      expect(listed.data.map((d) => d["name"])).toEqual(["Pilot"])
    }).pipe(Effect.provide(CrmLive))
  )
})
