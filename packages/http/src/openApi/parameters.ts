import { spelled } from "./headers.js"

/**
 * Parameters as HttpApi documents them, made to say what they take. A parameter is text on the
 * wire, and HttpApi documents that text (`type: string`); our checks document the value the text
 * must spell (parameters.ts: an integer, a number, a date, one of some values), which HttpApi
 * puts beside it under `allOf`, contradicting `type: string` where the value is a number. The
 * value is what OpenAPI means by a parameter's schema (the text is its serialization), so the
 * checks' fragments replace the text's type. HttpApi also describes a parameter in its schema
 * only; the description is the parameter's too, where documentation tools look for it.
 */

interface Parameter {
  name: string
  in: string
  description?: string
  schema?: Record<string, unknown>
}

const valueSchemaOf = (schema: Record<string, unknown>): Record<string, unknown> => {
  const { allOf, ...text } = schema as { allOf?: Array<Record<string, unknown>> } & Record<string, unknown>
  if (allOf === undefined) return schema
  return allOf.reduce<Record<string, unknown>>((value, fragment) => ({ ...value, ...fragment }), text)
}

export const describeParameter = (parameter: Parameter): Parameter => {
  const schema = parameter.schema === undefined ? undefined : valueSchemaOf(parameter.schema)
  const description = parameter.description ?? (schema?.["description"] as string | undefined)
  return {
    ...parameter,
    name: parameter.in === "header" ? spelled(parameter.name) : parameter.name,
    ...(description === undefined ? {} : { description }),
    ...(schema === undefined ? {} : { schema })
  }
}
