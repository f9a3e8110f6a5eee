import { type ErrorCode, errorBodyJsonSchema } from "../errors/ErrorBody.js"
import { ERRORS, type ErrorRow, type ErrorTag, rows } from "../errors/errorTable.js"

/**
 * The error schemas of the document. Endpoints declare their failures with the errors' own
 * schemas (the engine's and the edge's, for typing and status codes), which HttpApi documents
 * field by field under `<Name>Encoded`; the host answers every failure in one shape
 * (errors/errorResponse.ts), so the document shows each error under its name in that shape, with
 * its code. Codes, statuses and their descriptions are the error table's (errors/errorTable.ts).
 */

export const REF = "#/components/schemas/"

/** The rows an operation's responses show: the errors operations declare, and the 500 any may answer. */
const shown = rows.filter(([, row]) => !row.beforeOperations)

/** Declared by no operation: any of them may fail unexpectedly (see document.ts). */
export const INTERNAL_ERROR = "InternalError" satisfies ErrorTag

/**
 * Declared by no operation either: any write may run an embedder's inline projection, which may
 * fail. Answered with INTERNAL_ERROR's status, so the 500 shows both bodies.
 */
export const PROJECTION_FAILED = "ProjectionFailed" satisfies ErrorTag

/** The rows of each status, in the table's order. */
const byStatus = shown.reduce((statuses, [, row]) => {
  statuses.set(row.status, [...(statuses.get(row.status) ?? []), row])
  return statuses
}, new Map<number, ReadonlyArray<ErrorRow>>())

/** A status's rows as its description: the code with what it means, or the first's naming the others. */
const described = ([first, ...others]: ReadonlyArray<ErrorRow>): string =>
  others.length === 0
    ? `${first!.code}: ${first!.description}`
    : [`${first!.code} (${first!.description})`, ...others.map((row) => row.code)].join(" or ")

/** What each status means, as the description of that response. */
export const DESCRIPTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  [...byStatus].map(([status, at]) => [String(status), described(at)])
)

/**
 * The error body with its code fixed: a whole schema per error rather than `allOf` with the
 * shared shape, which generators of clients handle unevenly.
 */
const withCode = (code: ErrorCode): Record<string, unknown> => {
  // ErrorBody's example is a validation error: only that error keeps it.
  const { examples, ...shape } = errorBodyJsonSchema
  const body = shape as { properties: { error: { properties: Record<string, unknown> } } }
  return {
    ...shape,
    ...(code === "validation_error" ? { examples } : {}),
    properties: {
      ...body.properties,
      error: { ...body.properties.error, properties: { ...body.properties.error.properties, code: { type: "string", const: code } } }
    },
    description: `The error body, with code ${code}.`
  }
}

/**
 * The components with the declared errors in the ErrorBody shape, and the renaming of HttpApi's
 * `<Name>Encoded` references to them. HttpApi documents the errors that operations declare, each
 * under its tag, which names its row.
 */
export const errorSchemas = (
  schemas: Record<string, unknown>
): { readonly schemas: Record<string, unknown>; readonly renamed: ReadonlyMap<string, string> } => {
  const out: Record<string, unknown> = {
    ...schemas,
    [INTERNAL_ERROR]: withCode(ERRORS[INTERNAL_ERROR].code),
    [PROJECTION_FAILED]: withCode(ERRORS[PROJECTION_FAILED].code)
  }
  const renamed = new Map<string, string>()
  for (const [name, { code }] of shown) {
    for (const generated of [`${name}Encoded`, name]) {
      if (!(generated in schemas)) continue
      delete out[generated]
      out[name] = withCode(code)
      renamed.set(`${REF}${generated}`, `${REF}${name}`)
    }
  }
  return { schemas: out, renamed }
}

/** The 500 every operation may answer, under its status: a failure of the host's, or of an inline projection. */
export const internalErrorResponse = () => {
  const status = String(ERRORS[INTERNAL_ERROR].status)
  return {
    [status]: {
      description: DESCRIPTIONS[status]!,
      content: {
        "application/json": { schema: { anyOf: [INTERNAL_ERROR, PROJECTION_FAILED].map((name) => ({ $ref: `${REF}${name}` })) } }
      }
    }
  }
}
