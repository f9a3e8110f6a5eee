import { HttpApiBuilder } from "effect/http-api"
import { Layer } from "effect"
import { Api } from "./Api.js"
import { AuthenticationLive } from "./auth/Authentication.js"
import { ActivitiesLive } from "./activities/Http.js"
import { CompaniesLive } from "./companies/Http.js"
import { ContactsLive } from "./contacts/Http.js"
import { CustomFieldsLive } from "./customFields/Http.js"
import { DealsLive } from "./deals/Http.js"
import { ErrorBodiesLive } from "./errors/ErrorBodies.js"
import { IdempotentRepliesLive } from "./idempotency.js"
import { PipelinesLive } from "./pipelines/Http.js"
import { SystemLive } from "./system/Http.js"
import { TrashLive } from "./trash/Http.js"
import { EventsLive } from "./events/Http.js"
import { WebhooksLive } from "./webhooks/Http.js"

/**
 * The whole API's routes over an Engine, given API keys and a rate limiter, for an HttpRouter
 * (`HttpRouter.serve`). Every failure is answered with our error body (ErrorBodies).
 */
export const ApiLive = HttpApiBuilder.layer(Api).pipe(
  Layer.provide([
    ContactsLive,
    CompaniesLive,
    ActivitiesLive,
    PipelinesLive,
    DealsLive,
    CustomFieldsLive,
    TrashLive,
    WebhooksLive,
    EventsLive,
    SystemLive
  ]),
  Layer.provide([AuthenticationLive, IdempotentRepliesLive, ErrorBodiesLive])
)
