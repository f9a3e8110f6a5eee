import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import {
  actionErrors,
  created,
  createErrors,
  deleteErrors,
  listErrors,
  NoContent,
  readErrors,
  restored,
  single,
  writeErrors
} from "../answerSchemas.js"
import { pageOf, securedGroup } from "../documented.js"
import { historyDescription, HistoryEntry } from "../history/schemas.js"
import { activityParams, idempotencyHeader, idParams, ifMatchHeader, pagingParams } from "../parameters.js"
import { Activity, ActivityInput, ActivityPatch } from "./schemas.js"

export class ActivitiesApi extends securedGroup(
  "activities",
  HttpApiEndpoint.get("list", "/v1/activities", {
    query: activityParams,
    success: pageOf(Activity, "ActivityPage"),
    error: listErrors
  }).annotate(OpenApi.Description, "Sort fields: due_at, created_at, updated_at and custom fields (default created_at)."),
  HttpApiEndpoint.get("get", "/v1/activities/:id", {
    params: idParams,
    success: single(Activity),
    error: readErrors
  }),
  HttpApiEndpoint.post("create", "/v1/activities", {
    payload: ActivityInput,
    headers: idempotencyHeader,
    success: created(Activity),
    error: createErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/activities/:id", {
    params: idParams,
    payload: ActivityPatch,
    headers: ifMatchHeader,
    success: single(Activity),
    error: writeErrors
  }),
  HttpApiEndpoint.delete("delete", "/v1/activities/:id", {
    params: idParams,
    headers: ifMatchHeader,
    success: NoContent,
    error: deleteErrors
  }),
  HttpApiEndpoint.post("restore", "/v1/activities/:id/restore", {
    params: idParams,
    headers: idempotencyHeader,
    success: restored(Activity),
    error: actionErrors
  }),
  HttpApiEndpoint.get("history", "/v1/activities/:id/history", {
    params: idParams,
    query: pagingParams,
    success: pageOf(HistoryEntry, "HistoryPage"),
    error: readErrors
  }).annotate(OpenApi.Description, historyDescription("activity"))
) {}
