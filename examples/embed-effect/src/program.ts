import { Engine, type RequestContext } from "@dealstream/core"
import { Effect } from "effect"

const ctx: RequestContext = { workspaceId: "acme", requestId: null, actor: "importer" }

/**
 * Imports deals and answers what became of each: the engine is a service, every operation an Effect
 * whose failures are tagged domain errors, handled here by tag.
 */
export const importDeals = (rows: ReadonlyArray<{ readonly name: string; readonly value: number }>) =>
  Effect.gen(function* () {
    const crm = yield* Engine
    const sales = (yield* crm.pipelines.list(ctx)).data[0]!
    return yield* Effect.forEach(rows, (row) =>
      crm.deals.create(ctx, { name: row.name, value: row.value, currency: "EUR", pipeline_id: sales["id"] }).pipe(
        Effect.map((deal) => ({ name: row.name, id: deal.data["id"] as string })),
        Effect.catchTag("ValidationError", (error) => Effect.succeed({ name: row.name, refused: error.message }))
      )
    )
  })
