import { RecordTypes } from "@dealstream/core"
import { HttpApiBuilder } from "effect/http-api"
import { Effect, Layer } from "effect"
import { servedApi } from "./Api.js"
import { AuthenticationLive } from "./auth/Authentication.js"
import { GateLive } from "./auth/Gate.js"
import { ActivitiesLive } from "./activities/Http.js"
import { ApiKeysLive } from "./apiKeys/Http.js"
import { CompaniesLive } from "./companies/Http.js"
import { ContactsLive } from "./contacts/Http.js"
import { CustomFieldsLive } from "./customFields/Http.js"
import { DealsLive } from "./deals/Http.js"
import { ErrorBodiesLive } from "./errors/ErrorBodies.js"
import { IdempotentRepliesLive } from "./idempotency.js"
import { PipelinesLive } from "./pipelines/Http.js"
import { PluginLive } from "./plugins/Http.js"
import { SystemLive } from "./system/Http.js"
import { TrashLive } from "./trash/Http.js"
import { EventsLive } from "./events/Http.js"
import { WebhooksLive } from "./webhooks/Http.js"

/**
 * The whole API's routes over an Engine and the Gate its requests pass (auth/Gate.ts), for an
 * HttpRouter (`HttpRouter.serve`). Every failure is answered with our error body (ErrorBodies).
 * The host shares its Gate with its front (host/recordReads.ts); ApiLive below makes its own.
 *
 * It serves the record type plug-ins in the RecordTypes context it is built in (none by default),
 * which must be the engine's. Every group's handlers are made over the API served: a group's routes
 * take its endpoints off the API they are made with (HttpApiBuilder.group), and the trash's and the
 * webhooks' endpoints differ with the plug-ins.
 */
export const ApiOnGate = Layer.unwrap(
  Effect.gen(function* () {
    const plugins = yield* RecordTypes
    const { api, webhookEventTypes } = servedApi(plugins)
    return HttpApiBuilder.layer(api).pipe(
      Layer.provide([
        ContactsLive(api),
        CompaniesLive(api),
        ActivitiesLive(api),
        PipelinesLive(api),
        DealsLive(api),
        ...plugins.map((plugin) => PluginLive(api, plugin)),
        CustomFieldsLive(api),
        TrashLive(api),
        WebhooksLive(api, webhookEventTypes),
        EventsLive(api),
        ApiKeysLive(api),
        SystemLive(api)
      ]),
      Layer.provide([AuthenticationLive, IdempotentRepliesLive, ErrorBodiesLive])
    )
  })
)

/** The whole API given API keys and a rate limiter, with a Gate of its own: for an embedder's router. */
export const ApiLive = ApiOnGate.pipe(Layer.provide(GateLive))
