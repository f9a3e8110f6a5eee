import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { Api } from "./Api.js"
import { AuthenticationLive } from "./auth/Authentication.js"
import { ContactsLive } from "./contacts/Http.js"
import { CustomFieldsLive } from "./customFields/Http.js"
import { DealsLive } from "./deals/Http.js"
import { IdempotentRepliesLive } from "./idempotency.js"
import { PipelinesLive } from "./pipelines/Http.js"
import { SystemLive } from "./system/Http.js"
import { TrashLive } from "./trash/Http.js"
import { WebhooksLive } from "./webhooks/Http.js"

/** The whole API over an Engine, given API keys and a rate limiter. */
export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([ContactsLive, PipelinesLive, DealsLive, CustomFieldsLive, TrashLive, WebhooksLive, SystemLive]),
  Layer.provide([AuthenticationLive, IdempotentRepliesLive])
)
