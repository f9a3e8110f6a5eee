import type { OpenAPISpec } from "@effect/platform/OpenApi"
import { errorBodyJsonSchema } from "./errors/ErrorBody.js"

/**
 * HttpApi documents its own decode failure (HttpApiDecodeError, with parse issues) on every
 * endpoint, but the host answers those as `validation_error` in the ErrorBody shape; the document
 * must say what the client actually gets.
 */
export const describeEdgeErrors = (spec: Record<string, any>): Record<string, any> => {
  const typed = spec as OpenAPISpec
  const schemas: Record<string, unknown> = { ...typed.components.schemas }
  if ("HttpApiDecodeError" in schemas) {
    schemas["HttpApiDecodeError"] = { ...errorBodyJsonSchema, description: "validation_error: a query, path or header value is malformed" }
    delete schemas["Issue"]
    delete schemas["PropertyKey"]
  }
  return { ...spec, components: { ...typed.components, schemas } }
}
