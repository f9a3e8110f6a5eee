import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { listErrors, readErrors } from "../answerSchemas.js"
import { securedGroup } from "../documented.js"
import { feedParams, PathText } from "../parameters.js"
import { FeedEvent, feedDescription, FeedPage } from "./schemas.js"

export class EventsApi extends securedGroup(
  "events",
  HttpApiEndpoint.get("list", "/v1/events", {
    query: feedParams,
    success: FeedPage,
    error: listErrors
  }).annotate(OpenApi.Description, feedDescription),
  HttpApiEndpoint.get("get", "/v1/events/:id", {
    params: { id: PathText },
    success: FeedEvent,
    error: readErrors
  }).annotate(OpenApi.Description, "One event of the change feed by its id (a webhook payload's `id`, its `webhook-id` header).")
) {}
