import type { RecordTypeSet } from "@dealstream/core"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { listErrors, readErrors } from "../answerSchemas.js"
import { securedGroup } from "../documented.js"
import { feedParams, PathText } from "../parameters.js"
import { FeedEvent, feedDescription, FeedPage } from "./schemas.js"

/** The change feed of the record types `served` (core's recordTypeSet): its `types` name theirs. */
export const eventsGroup = (served: RecordTypeSet) =>
  securedGroup(
    "events",
    HttpApiEndpoint.get("list", "/v1/events", {
      query: feedParams(served),
      success: FeedPage,
      error: listErrors
    }).annotate(OpenApi.Description, feedDescription),
    HttpApiEndpoint.get("get", "/v1/events/:id", {
      params: { id: PathText },
      success: FeedEvent,
      error: readErrors
    }).annotate(OpenApi.Description, "One event of the change feed by its id (a webhook payload's `id`, its `webhook-id` header).")
  )
