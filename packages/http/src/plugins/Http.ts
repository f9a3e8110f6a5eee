import { Engine, type RecordBatch, type RecordService, type RecordTypePlugin } from "@dealstream/core"
import { type HttpApi, type HttpApiGroup, HttpApiBuilder } from "effect/http-api"
import { Effect } from "effect"
import type { ServedApi } from "../Api.js"
import { IdempotentReplies } from "../idempotency.js"
import { handleRecordResource, recordResourceHandlers } from "../recordGroups.js"
import { getRecord } from "../recordHandlers.js"
import { collectionOf } from "./Api.js"
import { pluginSchemas } from "./schemas.js"

type GroupsOf<A> = A extends HttpApi.HttpApi<string, infer Groups> ? Groups : never

/** The plug-in groups among an API's: a plug-in's is named at run time, by any string. */
type PluginGroups<Groups> = Groups extends HttpApiGroup.Constraint ? (string extends Groups["identifier"] ? Groups : never) : never

/**
 * HttpApiBuilder.group reads off the API only the group it implements (its endpoints, with the
 * API's middleware) and the API's annotations. Named by a string, that group could be any of the
 * API's as far as the types know; seen as an API of plug-in groups alone, it is typed as one.
 */
const asPluginApi = (api: ServedApi) => api as unknown as HttpApi.HttpApi<"dealstream", PluginGroups<GroupsOf<ServedApi>>>

/**
 * What answers for a plug-in the engine does not serve: a defect, the request's 500 with this in
 * the log. The engine reads its plug-ins from RecordTypes as the host does; one built apart from
 * the host and not given them serves none.
 */
const unserved = (plugin: RecordTypePlugin): RecordService & RecordBatch => {
  const missing = () =>
    Effect.die(new Error(`The engine serves no record type "${plugin.name}": give it the RecordTypes the host is given.`))
  return {
    list: missing,
    get: missing,
    create: missing,
    update: missing,
    delete: missing,
    restore: missing,
    history: missing,
    batch: missing
  }
}

/** A plug-in's endpoints over its service in the engine (`engine.records`, by the plug-in's name), as companies' are. */
export const PluginLive = (api: ServedApi, plugin: RecordTypePlugin) =>
  HttpApiBuilder.group(asPluginApi(api), plugin.plural, (handlers) =>
    Effect.gen(function* () {
      const engine = yield* Engine
      const idempotent = yield* IdempotentReplies
      const service = engine.records.get(plugin.name) ?? unserved(plugin)
      // A plug-in has no custom fields: its CSV columns are its schema's.
      const exported = { engine, object: null, record: pluginSchemas(plugin).record }
      return handleRecordResource(
        handlers,
        recordResourceHandlers(idempotent, collectionOf(plugin), service, getRecord(service.get), exported)
      )
    })
  )
