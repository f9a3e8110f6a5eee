import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { Schema } from "effect"
import { batchDescription, batchInput, BatchResults } from "../batch.js"
import {
  actionErrors,
  batchErrors,
  created,
  createErrors,
  deleteErrors,
  listErrors,
  NoContent,
  readErrors,
  replayable200,
  restored,
  single,
  writeErrors
} from "../answerSchemas.js"
import { pageOf, securedGroup } from "../documented.js"
import { historyDescription, HistoryEntry } from "../history/schemas.js"
import { idempotencyHeader, idParams, ifMatchHeader, pagingParams, searchParams } from "../parameters.js"
import { Company, CompanyInput, CompanyPatch } from "./schemas.js"

/** The engine checks the values (unknown ones are 400 at `expand`); the schema documents them. */
const companyGetParams = {
  expand: Schema.optionalKey(
    Schema.String.annotate({
      description: "Comma-separated: `contacts`, `deals`, `activities`."
    })
  )
}

export class CompaniesApi extends securedGroup(
  "companies",
  HttpApiEndpoint.get("list", "/v1/companies", {
    query: searchParams,
    success: pageOf(Company, "CompanyPage"),
    error: listErrors
  }).annotate(
    OpenApi.Description,
    "Search: words of name and domain. Sort fields: name, domain, created_at, updated_at and custom fields."
  ),
  HttpApiEndpoint.get("get", "/v1/companies/:id", {
    params: idParams,
    query: companyGetParams,
    success: single(Company),
    error: readErrors
  }),
  HttpApiEndpoint.post("batch", "/v1/companies/batch", {
    payload: batchInput("Company", "CompanyBatch", "domain"),
    headers: idempotencyHeader,
    success: replayable200(BatchResults),
    error: batchErrors
  }).annotate(OpenApi.Description, batchDescription("companies", "domain")),
  HttpApiEndpoint.post("create", "/v1/companies", {
    payload: CompanyInput,
    headers: idempotencyHeader,
    success: created(Company),
    error: createErrors
  }),
  HttpApiEndpoint.patch("update", "/v1/companies/:id", {
    params: idParams,
    payload: CompanyPatch,
    headers: ifMatchHeader,
    success: single(Company),
    error: writeErrors
  }),
  HttpApiEndpoint.delete("delete", "/v1/companies/:id", {
    params: idParams,
    headers: ifMatchHeader,
    success: NoContent,
    error: deleteErrors
  }),
  HttpApiEndpoint.post("restore", "/v1/companies/:id/restore", {
    params: idParams,
    headers: idempotencyHeader,
    success: restored(Company),
    error: actionErrors
  }),
  HttpApiEndpoint.get("history", "/v1/companies/:id/history", {
    params: idParams,
    query: pagingParams,
    success: pageOf(HistoryEntry, "HistoryPage"),
    error: readErrors
  }).annotate(OpenApi.Description, historyDescription("company"))
) {}
