import { HttpApiEndpoint } from "effect/http-api"
import { created, defineErrors, listErrors, NoContent } from "../answerSchemas.js"
import { Conflicting, Invalid, Missing } from "../errors/HttpErrors.js"
import { pageOf, securedGroup } from "../documented.js"
import { customFieldParams, idempotencyHeader, PathText } from "../parameters.js"
import { CustomFieldDefinition, CustomFieldInput } from "./schemas.js"

export class CustomFieldsApi extends securedGroup(
  "customFields",
  HttpApiEndpoint.get("list", "/v1/custom-fields", {
    query: customFieldParams,
    success: pageOf(CustomFieldDefinition, "CustomFieldPage"),
    error: listErrors
  }),
  HttpApiEndpoint.post("create", "/v1/custom-fields", {
    payload: CustomFieldInput,
    headers: idempotencyHeader,
    success: created(CustomFieldDefinition),
    error: defineErrors
  }),
  // Not conditional (If-Match is refused, see Http.ts): no 412.
  HttpApiEndpoint.delete("delete", "/v1/custom-fields/:object/:key", {
    params: { object: PathText, key: PathText },
    success: NoContent,
    error: [Invalid, Missing, Conflicting]
  })
) {}
