import * as SqlError from "effect/sql/SqlError"

/**
 * The SQLSTATE and constraint name of a server error, when there is one. @effect/sql-pg 4 wraps it
 * twice: the SqlError's `reason` (UniqueViolation, DeadlockError, …) holds as its `cause` an Error
 * carrying the server's ErrorResponse fields (`code`, `constraint`, `detail`, …).
 */
export const sqlStateOf = (error: SqlError.SqlError): { readonly code: string | null; readonly constraint: string | null } => {
  const fields = error.reason.cause
  if (typeof fields !== "object" || fields === null) return { code: null, constraint: null }
  const { code, constraint, message } = fields as { readonly code?: unknown; readonly constraint?: unknown; readonly message?: unknown }
  // Citus passes a worker's error on with its message alone: the constraint is named only there.
  const named = typeof message === "string" && code === "23505" ? /unique constraint "([^"]+)"/.exec(message)?.[1] : undefined
  return {
    // A socket's error carries Node's code instead, and some of those look like a SQLSTATE: EPIPE,
    // a write to a connection the server had closed (a server killed mid-statement). No class of
    // SQLSTATE begins with E.
    code: typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith("E") ? code : null,
    constraint:
      typeof constraint === "string" && constraint !== ""
        ? logicalConstraint(constraint)
        : named === undefined
          ? null
          : logicalConstraint(named)
  }
}

/**
 * A constraint's name as the schema gives it. On Citus a worker names the shard's copy, with the
 * shard id after an underscore (`ds_contacts_unique_key_102034`); no constraint of the schema ends
 * in digits.
 */
export const logicalConstraint = (name: string): string => name.replace(/_\d+$/, "")

/**
 * A server error as @effect/sql-pg reports it: the reason it would choose for the SQLSTATE, over
 * an Error with the same fields. For errors the server reported in a result (a commit undone alone
 * inside a batch), so they are handled exactly like thrown ones.
 */
export const serverError = (fields: { readonly code: string; readonly constraint: string | null; readonly message: string }) => {
  const cause = Object.assign(new Error(fields.message), {
    code: fields.code,
    ...(fields.constraint === null ? {} : { constraint: fields.constraint })
  })
  const props = { cause, message: fields.message, operation: "query" }
  const { code } = fields
  const reason =
    code === "23505"
      ? new SqlError.UniqueViolation({ ...props, constraint: fields.constraint ?? "unknown" })
      : code === "40P01"
        ? new SqlError.DeadlockError(props)
        : code === "40001"
          ? new SqlError.SerializationError(props)
          : code === "55P03"
            ? new SqlError.LockTimeoutError(props)
            : code === "57014"
              ? new SqlError.StatementTimeoutError(props)
              : code.startsWith("08")
                ? new SqlError.ConnectionError(props)
                : code.startsWith("23")
                  ? new SqlError.ConstraintError(props)
                  : new SqlError.UnknownError(props)
  return new SqlError.SqlError({ reason })
}
