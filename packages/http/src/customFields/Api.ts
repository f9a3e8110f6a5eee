import { HttpApiEndpoint, HttpApiSchema } from "effect/http-api"
import { idempotencyHeader, NoContent, optionalText, pageOf, PathText, securedErrors, securedGroup } from "../documented.js"
import { CustomFieldDefinition } from "./schemas.js"

export class CustomFieldsApi extends securedGroup(
  "customFields",
  HttpApiEndpoint.get("list", "/v1/custom-fields", {
    query: { object: optionalText("contact or deal; both when absent.") },
    success: pageOf(CustomFieldDefinition, "CustomFieldPage"),
    error: securedErrors
  }),
  HttpApiEndpoint.post("create", "/v1/custom-fields", {
    payload: CustomFieldDefinition,
    headers: idempotencyHeader,
    success: CustomFieldDefinition.pipe(HttpApiSchema.status(201)),
    error: securedErrors
  }),
  HttpApiEndpoint.delete("delete", "/v1/custom-fields/:object/:key", {
    params: { object: PathText, key: PathText },
    success: NoContent,
    error: securedErrors
  })
) {}
