import { Effect, Result } from "effect"
import type { CustomFieldDefinition, CustomFieldObject } from "../customField/definition.js"
import { type CustomFieldEvent, type CustomFieldState, customFieldDecider, parseCustomFieldCreate } from "../customField/index.js"
import { NotFound, ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { EngineDeps } from "./deps.js"
import { storableBody } from "./storable.js"
import type { RequestContext } from "./Engine.js"
import { execute, loadStream } from "./execute.js"

/** All custom field definitions of a workspace live in one stream, so defining one is atomic. */
export const customFieldStreamId = (workspaceId: string) => `cfs_${workspaceId}`

const toJson = (d: CustomFieldDefinition): JsonObject => ({
  object: d.object,
  key: d.key,
  label: d.label,
  type: d.type,
  options: d.options,
  created_at: d.created_at
})

const isObject = (value: string): value is CustomFieldObject => value === "contact" || value === "deal"

export const makeCustomFields = (deps: EngineDeps) => {
  const definitions = (ctx: RequestContext) =>
    Effect.map(loadStream<CustomFieldEvent>(deps, ctx, customFieldStreamId(ctx.workspaceId)), (loaded) =>
      loaded.history.reduce(customFieldDecider.evolve, customFieldDecider.initialState).definitions)

  const stream = (ctx: RequestContext) => ({
    ctx,
    streamId: customFieldStreamId(ctx.workspaceId),
    resource: "custom_field",
    decider: customFieldDecider,
    ifMatch: null,
    creates: true,
    documents: () => []
  })

  const list = (ctx: RequestContext, object: string | null) =>
    Effect.gen(function*() {
      if (object !== null && object !== "contact" && object !== "deal") {
        return yield* ValidationError.at("object", "must be contact or deal")
      }
      const defs = yield* definitions(ctx)
      return { data: defs.filter((d) => object === null || d.object === object).map(toJson), next_cursor: null }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function*() {
      const parsed = parseCustomFieldCreate(yield* storableBody(body))
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const result = yield* execute(deps, {
        ...stream(ctx),
        command: ({ at }) => Effect.succeed({ type: "DefineCustomField" as const, at, definition: parsed.success })
      })
      const state = (result.all as ReadonlyArray<CustomFieldEvent>).reduce(
        (current: CustomFieldState, event) => customFieldDecider.evolve(current, event),
        customFieldDecider.initialState
      )
      const defined = state.definitions
        .find((d) => d.object === parsed.success.object && d.key === parsed.success.key)
      if (defined === undefined) return yield* Effect.die(new Error("a defined custom field is missing from its stream"))
      return { data: toJson(defined), version: result.version }
    })

  const remove = (ctx: RequestContext, object: string, key: string) =>
    Effect.gen(function*() {
      if (!isObject(object)) return yield* new NotFound({ resource: "custom_field", id: `${object}.${key}` })
      yield* execute(deps, {
        ...stream(ctx),
        command: ({ at }) => Effect.succeed({ type: "RemoveCustomField" as const, object, key, at })
      })
    })

  return { definitions, list, create, delete: remove }
}

export type CustomFields = ReturnType<typeof makeCustomFields>
