import { Effect, Result } from "effect"
import type { CustomFieldDefinition, CustomFieldObject } from "../customField/definition.js"
import { stateOf } from "../aggregate.js"
import { customFieldAggregate, customFieldStreamId, parseCustomFieldCreate } from "../customField/index.js"
import { NotFound, ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import { catalogOf, type FieldCatalog } from "../query/fields.js"
import type { EngineDeps } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { handleCommand, loadStream } from "./handleCommand.js"
import { storableBody } from "./storable.js"

/** A workspace's custom field definitions and the field catalogs of contacts and deals built from them. */
export interface Catalogs {
  readonly defs: ReadonlyArray<CustomFieldDefinition>
  readonly contact: FieldCatalog
  readonly deal: FieldCatalog
}

const toJson = (d: CustomFieldDefinition): JsonObject => ({
  object: d.object,
  key: d.key,
  label: d.label,
  type: d.type,
  options: d.options,
  created_at: d.created_at
})

const isObject = (value: string): value is CustomFieldObject => value === "contact" || value === "deal"

/** A workspace's custom field definitions, folded from their stream. */
export const customFieldDefinitions = (deps: EngineDeps, ctx: RequestContext) =>
  Effect.map(
    loadStream(deps, customFieldAggregate, ctx, customFieldStreamId(ctx.workspaceId)),
    (loaded) => stateOf(customFieldAggregate, loaded.history).definitions
  )

/** What a contact or deal request reads once: the definitions, and the catalogs made of them. */
export const catalogs = (deps: EngineDeps, ctx: RequestContext) =>
  Effect.map(
    customFieldDefinitions(deps, ctx),
    (defs): Catalogs => ({ defs, contact: catalogOf("contact", defs), deal: catalogOf("deal", defs) })
  )

export const makeCustomFields = (deps: EngineDeps) => {
  const list = (ctx: RequestContext, object: string | null) =>
    Effect.gen(function*() {
      if (object !== null && object !== "contact" && object !== "deal") {
        return yield* ValidationError.at("object", "must be contact or deal")
      }
      const defs = yield* customFieldDefinitions(deps, ctx)
      return { data: defs.filter((d) => object === null || d.object === object).map(toJson), next_cursor: null }
    })
  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function*() {
      const parsed = parseCustomFieldCreate(yield* storableBody(body))
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const result = yield* handleCommand(deps, customFieldAggregate, {
        ctx,
        streamId: customFieldStreamId(ctx.workspaceId),
        stream: "any",
        command: ({ at }) => Effect.succeed({ type: "DefineCustomField" as const, at, definition: parsed.success })
      })
      const defined = stateOf(customFieldAggregate, result.all).definitions
        .find((d) => d.object === parsed.success.object && d.key === parsed.success.key)
      if (defined === undefined) return yield* Effect.die(new Error("a defined custom field is missing from its stream"))
      return { data: toJson(defined), version: result.version }
    })

  const remove = (ctx: RequestContext, object: string, key: string) =>
    Effect.gen(function*() {
      if (!isObject(object)) return yield* new NotFound({ resource: "custom_field", id: `${object}.${key}` })
      yield* handleCommand(deps, customFieldAggregate, {
        ctx,
        streamId: customFieldStreamId(ctx.workspaceId),
        stream: "any",
        command: ({ at }) => Effect.succeed({ type: "RemoveCustomField" as const, object, key, at })
      })
    })

  return { list, create, delete: remove }
}
