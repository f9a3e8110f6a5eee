import { Effect, Either } from "effect"
import type { CustomFieldDefinition, CustomFieldObject } from "../customField/definition.js"
import { type CustomFieldEvent, customFieldDecider, parseCustomFieldCreate } from "../customField/index.js"
import { NotFound, ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { EngineDeps } from "./deps.js"
import { nowIso } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { execute, loadStream } from "./execute.js"
import type { Workspaces } from "./workspace.js"

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

export const makeCustomFields = (deps: EngineDeps, workspaces: Workspaces) => {
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
      yield* workspaces.ensure(ctx)
      const defs = yield* definitions(ctx)
      return { data: defs.filter((d) => object === null || d.object === object).map(toJson), next_cursor: null }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function*() {
      const parsed = parseCustomFieldCreate(body)
      if (Either.isLeft(parsed)) return yield* parsed.left
      const at = yield* nowIso
      const result = yield* execute(deps, {
        ...stream(ctx),
        command: () => Effect.succeed({ type: "DefineCustomField" as const, at, definition: parsed.right })
      })
      return { data: toJson({ ...parsed.right, created_at: at }), version: result.version }
    })

  const remove = (ctx: RequestContext, object: string, key: string) =>
    Effect.gen(function*() {
      if (!isObject(object)) return yield* new NotFound({ resource: "custom_field", id: `${object}.${key}` })
      const at = yield* nowIso
      yield* execute(deps, {
        ...stream(ctx),
        command: () => Effect.succeed({ type: "RemoveCustomField" as const, object, key, at })
      })
    })

  return { definitions, list, create, delete: remove }
}

export type CustomFields = ReturnType<typeof makeCustomFields>
