/**
 * A record's custom fields beside its standard ones, wherever one sits in the schema: Effect 4
 * writes a StructWithRest's record as `allOf: [{additionalProperties}]`, which in JSON Schema
 * applies to the standard fields as well; `additionalProperties` next to `properties` is what the
 * engine checks. The OpenAPI document's components and the webhook event types' schemas go through it.
 */
export const customFieldsBesideProperties = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(customFieldsBesideProperties)
  if (typeof schema !== "object" || schema === null) return schema
  const node = Object.fromEntries(Object.entries(schema).map(([key, inner]) => [key, customFieldsBesideProperties(inner)]))
  const { allOf, ...rest } = node
  const only = Array.isArray(allOf) && allOf.length === 1 ? (allOf[0] as Record<string, unknown>) : undefined
  if (rest["properties"] === undefined || rest["additionalProperties"] !== undefined || only === undefined) return node
  const { additionalProperties, type, ...others } = only
  if (type !== "object" || additionalProperties === undefined || Object.keys(others).length > 0) return node
  return { ...rest, additionalProperties }
}
