import { HttpApiEndpoint, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { idempotencyHeader, optionalText, pageOf, PathText, securedGroup } from "../documented.js"
import { CustomFieldDefinition } from "./schemas.js"

const objectParam = HttpApiSchema.param("object", PathText)
const keyParam = HttpApiSchema.param("key", PathText)

export class CustomFieldsApi extends securedGroup("customFields")
  .add(
    HttpApiEndpoint.get("list", "/v1/custom-fields")
      .setUrlParams(Schema.Struct({ object: optionalText("contact or deal; both when absent.") }))
      .addSuccess(pageOf(CustomFieldDefinition, "CustomFieldPage"))
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/custom-fields")
      .setPayload(CustomFieldDefinition)
      .setHeaders(idempotencyHeader)
      .addSuccess(CustomFieldDefinition, { status: 201 })
  )
  .add(
    HttpApiEndpoint.del("delete")`/v1/custom-fields/${objectParam}/${keyParam}`
      .addSuccess(HttpApiSchema.NoContent)
  )
{}
