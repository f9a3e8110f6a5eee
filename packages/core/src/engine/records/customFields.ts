import { Effect, Result } from "effect"
import { type CustomFieldDefinition, CustomFieldObject } from "../../customField/definition.js"
import { customFieldAggregate, customFieldStreamId, parseCustomFieldCreate } from "../../customField/index.js"
import { NotFound, ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { handleCommand } from "../commands/handleCommand.js"
import { catalogs } from "../base/settings.js"
import { storableBody } from "../base/storable.js"

const toJson = (d: CustomFieldDefinition): JsonObject => ({
  object: d.object,
  key: d.key,
  label: d.label,
  type: d.type,
  options: d.options,
  created_at: d.created_at
})

const OBJECTS: ReadonlyArray<string> = CustomFieldObject.literals

const isObject = (value: string): value is CustomFieldObject => OBJECTS.includes(value)

export const makeCustomFields = (deps: EngineDeps) => {
  const list = (ctx: RequestContext, object: string | null) =>
    Effect.gen(function* () {
      if (object !== null && !isObject(object)) {
        return yield* ValidationError.at("object", `must be one of ${OBJECTS.join(", ")}`)
      }
      const { defs } = yield* catalogs(deps, ctx)
      return { data: defs.filter((d) => object === null || d.object === object).map(toJson), next_cursor: null }
    })
  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function* () {
      const parsed = parseCustomFieldCreate(yield* storableBody(body))
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const result = yield* handleCommand(deps, customFieldAggregate, {
        ctx,
        streamId: customFieldStreamId(ctx.workspaceId),
        stream: "any",
        command: ({ at }) => Effect.succeed({ type: "DefineCustomField" as const, at, definition: parsed.success })
      })
      const defined = result.state.definitions.find((d) => d.object === parsed.success.object && d.key === parsed.success.key)
      if (defined === undefined) return yield* Effect.die(new Error("a defined custom field is missing from its stream"))
      return { data: toJson(defined), version: result.version }
    })

  const remove = (ctx: RequestContext, object: string, key: string) =>
    Effect.gen(function* () {
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
