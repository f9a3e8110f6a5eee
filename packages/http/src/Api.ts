import { HttpApi, OpenApi } from "effect/http-api"
import { ActivitiesApi } from "./activities/Api.js"
import { CompaniesApi } from "./companies/Api.js"
import { ContactsApi } from "./contacts/Api.js"
import { CustomFieldsApi } from "./customFields/Api.js"
import { DealsApi } from "./deals/Api.js"
import { ErrorBodies } from "./errors/ErrorBodies.js"
import { EventsApi } from "./events/Api.js"
import { describeDocument } from "./openApi/document.js"
import { PipelinesApi } from "./pipelines/Api.js"
import { SystemApi } from "./system/Api.js"
import { TrashApi } from "./trash/Api.js"
import { WebhooksApi } from "./webhooks/Api.js"

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

/** The whole API; ErrorBodies comes last so that it wraps every endpoint's own middleware. */
export class Api extends HttpApi.make("dealstream")
  .add(ContactsApi, CompaniesApi, ActivitiesApi, PipelinesApi, DealsApi, CustomFieldsApi, TrashApi, WebhooksApi, EventsApi, SystemApi)
  .middleware(ErrorBodies)
  .annotate(OpenApi.Title, "dealstream API")
  .annotate(OpenApi.Version, "1")
  .annotate(OpenApi.Description, description)
  .annotate(OpenApi.Transform, describeDocument)
  // Like the engine, which reports every problem of a list's parameters at once.
  .annotate(HttpApi.QueryParseOptions, { errors: "all" }) {}
