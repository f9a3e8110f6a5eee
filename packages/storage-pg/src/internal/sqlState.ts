import type { SqlError } from "@effect/sql/SqlError"

/** The SQLSTATE and constraint name node-postgres attaches to a server error, when there is one. */
export const sqlStateOf = (error: SqlError): { readonly code: string | null; readonly constraint: string | null } => {
  const cause = error.cause
  if (typeof cause !== "object" || cause === null) return { code: null, constraint: null }
  const { code, constraint } = cause as { readonly code?: unknown; readonly constraint?: unknown }
  return {
    code: typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null,
    constraint: typeof constraint === "string" ? constraint : null
  }
}
