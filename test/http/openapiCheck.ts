import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"

/**
 * Checks answers against the OpenAPI document the host serves: the operation is found by method
 * and path template, the status must be one the operation declares, the body must match the
 * schema declared for that status, every required response header must be there, and every
 * declared header that is there must match its schema. Ajv compiles the document as it is served:
 * it is told only which keys of the OpenAPI object wrap the schemas.
 */

export interface CheckedAnswer {
  readonly status: number
  readonly headers: Headers
  /** The raw body; empty for none. */
  readonly text: string
}

interface HeaderObject {
  readonly required?: boolean
  readonly schema?: Record<string, unknown>
}

interface ResponseObject {
  readonly headers?: Record<string, HeaderObject>
  readonly content?: Record<string, { readonly schema?: unknown }>
}

interface Operation {
  readonly responses: Record<string, ResponseObject>
}

export type OpenApiDocument = {
  readonly paths: Record<string, Record<string, Operation>>
} & Record<string, unknown>

/** The keys of the OpenAPI object around the schemas: Ajv is told they are not JSON Schema keywords. */
const OPENAPI_OBJECT_KEYS = [
  "openapi",
  "info",
  "jsonSchemaDialect",
  "servers",
  "paths",
  "webhooks",
  "components",
  "security",
  "tags",
  "externalDocs"
]

/** JSON Pointer token (RFC 6901) inside a URI fragment. */
const pointerToken = (token: string) => encodeURIComponent(token.replaceAll("~", "~0").replaceAll("/", "~1"))

/** Header values are text; a header declared as a number is checked as the number it spells. */
const headerValue = (raw: string, schema: Record<string, unknown> | undefined): unknown => {
  const type = schema?.["type"]
  if ((type === "integer" || type === "number") && /^-?[0-9]+(?:\.[0-9]+)?$/.test(raw)) return Number(raw)
  return raw
}

const shown = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .map((error) => `${error.instancePath || "(root)"} ${error.message ?? ""} ${JSON.stringify(error.params)}`)
    .join("; ")

export interface Checker {
  /** What is wrong with this answer to `method path` (empty when it conforms, or when no operation is documented for it). */
  readonly problems: (method: string, path: string, answer: CheckedAnswer) => ReadonlyArray<string>
  /** The operation's path template, or null when the document has none for this request. */
  readonly templateOf: (method: string, path: string) => string | null
  /** The validator of the schema at this JSON Pointer into the document (its tokens unescaped), compiled once. */
  readonly compile: (...tokens: ReadonlyArray<string>) => ValidateFunction
}

export const makeChecker = (document: OpenApiDocument): Checker => {
  const ajv = new Ajv2020.default({ allErrors: true, strict: true })
  addFormats.default(ajv)
  ajv.addVocabulary(OPENAPI_OBJECT_KEYS)
  ajv.addSchema(document, "openapi.json")

  const validators = new Map<string, ValidateFunction>()
  /** The validator of the schema at this JSON Pointer into the document, compiled once. */
  const validatorAt = (...tokens: ReadonlyArray<string>): ValidateFunction => {
    const ref = `openapi.json#/${tokens.map(pointerToken).join("/")}`
    let validate = validators.get(ref)
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref })
      validators.set(ref, validate)
    }
    return validate
  }

  // Templates with more literal segments first, so `/v1/deals/{id}/stage` never reads as a parameter.
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      pattern: new RegExp(
        `^${template
          .split("/")
          .map((part) => (/^\{[^}]+\}$/.test(part) ? "[^/]+" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
          .join("/")}$`
      ),
      literals: template.split("/").filter((part) => !part.startsWith("{")).length
    }))
    .sort((a, b) => b.literals - a.literals)

  const templateOf = (method: string, path: string): string | null => {
    const pathname = path.split("?")[0]!
    const found = templates.find(
      ({ pattern, template }) => pattern.test(pathname) && document.paths[template]?.[method.toLowerCase()] !== undefined
    )
    return found?.template ?? null
  }

  const problems = (method: string, path: string, answer: CheckedAnswer): ReadonlyArray<string> => {
    const template = templateOf(method, path)
    if (template === null) return []
    const verb = method.toLowerCase()
    const operation = document.paths[template]![verb]!
    const status = String(answer.status)
    const response = operation.responses[status] ?? operation.responses["default"]
    if (response === undefined) return [`status ${status} is not declared (declared: ${Object.keys(operation.responses).join(", ")})`]
    const responseKey = operation.responses[status] === undefined ? "default" : status
    const found: Array<string> = []

    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = answer.headers.get(name)
      if (value === null) {
        if (header.required === true) found.push(`header ${name} is required but missing`)
        continue
      }
      if (header.schema === undefined) continue
      const validate = validatorAt("paths", template, verb, "responses", responseKey, "headers", name, "schema")
      if (!validate(headerValue(value, header.schema))) found.push(`header ${name}: ${JSON.stringify(value)} ${shown(validate)}`)
    }

    const json = response.content?.["application/json"]
    if (json === undefined) {
      if (answer.text !== "") found.push(`a body where none is declared: ${answer.text.slice(0, 200)}`)
      return found
    }
    if (!(answer.headers.get("content-type") ?? "").startsWith("application/json")) {
      found.push(`content-type ${answer.headers.get("content-type")} where application/json is declared`)
      return found
    }
    let body: unknown
    try {
      body = JSON.parse(answer.text)
    } catch {
      found.push(`a body that is not JSON: ${answer.text.slice(0, 200)}`)
      return found
    }
    const validate = validatorAt("paths", template, verb, "responses", responseKey, "content", "application/json", "schema")
    if (!validate(body)) found.push(`body: ${shown(validate)}`)
    return found
  }

  return { problems, templateOf, compile: validatorAt }
}

const checkers = new Map<string, Promise<Checker>>()

/** The checker of the document a host serves at /v1/openapi.json, fetched and compiled once per document. */
export const checkerFor = (url: string): Promise<Checker> => {
  let checker = checkers.get(url)
  if (checker === undefined) {
    checker = fetch(`${url}/v1/openapi.json`).then(async (response) => {
      if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`)
      const text = await response.text()
      const cached = checkers.get(text)
      if (cached !== undefined) return cached
      const made = Promise.resolve(makeChecker(JSON.parse(text) as OpenApiDocument))
      checkers.set(text, made)
      return made
    })
    checkers.set(url, checker)
    // A host that failed to answer is not remembered: the next call asks again.
    checker.catch(() => checkers.delete(url))
  }
  return checker
}
