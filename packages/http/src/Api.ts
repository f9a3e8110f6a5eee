import { builtInRecordTypes, knownScopes, type RecordTypePlugin, type RecordTypeSet, recordTypeSet } from "@dealstream/core"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { HttpApi, type HttpApiGroup, OpenApi } from "effect/http-api"
import { ActivitiesApi } from "./activities/Api.js"
import { apiKeysGroup } from "./apiKeys/Api.js"
import { CompaniesApi } from "./companies/Api.js"
import { ContactsApi } from "./contacts/Api.js"
import { CustomFieldsApi } from "./customFields/Api.js"
import { DealsApi } from "./deals/Api.js"
import { ErrorBodies } from "./errors/ErrorBodies.js"
import { eventsGroup } from "./events/Api.js"
import { describeDocument } from "./openApi/document.js"
import { PipelinesApi } from "./pipelines/Api.js"
import { type PluginGroup, pluginGroup } from "./plugins/Api.js"
import { pluginSchemas } from "./plugins/schemas.js"
import { SystemApi } from "./system/Api.js"
import { trashGroup } from "./trash/Api.js"
import { webhookEventTypes } from "./webhooks/eventTypes.js"
import { webhooksGroup } from "./webhooks/Api.js"

const description = `The dealstream CRM API.

Authenticate with \`Authorization: Bearer <API key>\`; the key decides the workspace. Bodies are JSON
(\`Content-Type: application/json\`, at most 1 MiB). Every non-2xx answer has the body
\`{"error": {"code", "message", "details": [{"path", "message"}], "request_id"}}\`. A request that is
not valid HTTP/1.1 is refused before it reaches any operation, with that body: 400, 408 (not complete
in time), 413 (chunk extensions too large), 417 (an \`Expect\` other than \`100-continue\`) or 431 (request
line and headers over 16 KiB). A path the router cannot match, one that does not percent-decode to
UTF-8 or with a path parameter over 100 characters, is 404 \`not_found\` before authentication.

Single-record responses carry \`ETag: "<version>"\`; send it back in \`If-Match\` on PATCH, PUT or DELETE
to make the write conditional (412 when it no longer matches). Any POST may carry an
\`Idempotency-Key\`: the same key and body within 24 h replays the first answer
(\`Idempotent-Replayed: true\`), and is never applied twice, even when the host stopped before it
could store its answer (the record the write made is answered then; 409 where it cannot be read). Requests to authenticated routes are limited per client address before the key is checked, and per
key after; responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` of the limit nearer to
refusing; over either limit the answer is 429 with \`Retry-After\`.
Lists answer \`{"data": [...], "next_cursor"}\`; pass \`next_cursor\` as \`cursor\` for the next page.

Records live in PostgreSQL (or, for a throwaway host, in memory). Several hosts may serve one database:
each answers with what the database holds, so a write through one host is read through any other at
once, and uniqueness (a live contact's email) holds across hosts.`

/** The whole API of `groups`; ErrorBodies comes last so that it wraps every endpoint's own middleware. */
const apiOf = <const Groups extends NonEmptyReadonlyArray<HttpApiGroup.Constraint>>(groups: Groups) =>
  HttpApi.make("dealstream")
    .add(...groups)
    .middleware(ErrorBodies)
    .annotate(OpenApi.Title, "dealstream API")
    .annotate(OpenApi.Version, "1")
    .annotate(OpenApi.Description, description)
    .annotate(OpenApi.Transform, describeDocument)
    // Like the engine, which reports every problem of a list's parameters at once.
    .annotate(HttpApi.QueryParseOptions, { errors: "all" })

/**
 * The groups in the document's order: the record resources, the plug-ins' after the built-in ones,
 * then the rest; the trash and the webhooks name the record types served.
 */
const groupsOf = <Plugin extends PluginGroup>(served: RecordTypeSet, plugins: ReadonlyArray<Plugin>) =>
  [
    ContactsApi,
    CompaniesApi,
    ActivitiesApi,
    PipelinesApi,
    DealsApi,
    ...plugins,
    CustomFieldsApi,
    trashGroup(served.names),
    webhooksGroup(served.eventTypes),
    eventsGroup(served),
    apiKeysGroup(knownScopes(served.plugins.map((plugin) => plugin.plural))),
    SystemApi
  ] as const

/**
 * The API of the built-in record types: what a host given no plug-in serves (servedApi([]) is the
 * same API), and what the typed client (@dealstream/client) is derived from.
 */
export class Api extends apiOf(groupsOf(builtInRecordTypes, [])) {}

/**
 * The API a host given `plugins` (the RecordTypes context) serves, and the webhook event types it
 * answers, made from the same schemas. A plug-in's group is named by its plural, which must not be
 * a built-in group's: the API would hold one group under that name, not both.
 */
export const servedApi = (plugins: ReadonlyArray<RecordTypePlugin>) => {
  const taken = new Set(Object.keys(Api.groups))
  for (const plugin of plugins) {
    if (taken.has(plugin.plural))
      throw new Error(`The record type plug-in "${plugin.name}" has the plural "${plugin.plural}", which names another group of the API.`)
    taken.add(plugin.plural)
  }
  const served = recordTypeSet(plugins)
  const resources = plugins.map((plugin) => ({ plugin, schemas: pluginSchemas(plugin) }))
  return {
    api: apiOf(
      groupsOf(
        served,
        resources.map(({ plugin, schemas }) => pluginGroup(plugin, schemas))
      )
    ),
    webhookEventTypes: webhookEventTypes(served, new Map(resources.map(({ plugin, schemas }) => [plugin.name, schemas.record])))
  }
}

/** The API a host serves, plug-ins or none: what every group's handlers are made over. */
export type ServedApi = ReturnType<typeof servedApi>["api"]
