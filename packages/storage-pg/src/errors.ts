import { StorageUnavailable } from "@dealstream/core"
import { Effect, Schema } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { hostsTargetOf } from "./hosts.js"
import { sqlStateOf } from "./internal/sqlState.js"

/**
 * PostgreSQL storage could not be set up: the database is unreachable, refuses the login, or the
 * migrations failed. The message is one line meant for a person (the CLI prints it as is).
 */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", {
  message: Schema.String
}) {}

const networkReasons: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable"
}

const firstLine = (text: string) => text.split("\n")[0]?.trim() ?? ""

/** Why a connection or statement failed, in a few words. */
export const reasonOf = (cause: unknown): string => {
  if (typeof cause !== "object" || cause === null) return firstLine(String(cause))
  const {
    code,
    errors,
    message,
    cause: inner
  } = cause as {
    readonly code?: unknown
    readonly errors?: unknown
    readonly message?: unknown
    readonly cause?: unknown
  }
  if (typeof code === "string" && networkReasons[code] !== undefined) return networkReasons[code]
  // Node reports "localhost" tried over IPv6 and IPv4 as one AggregateError.
  if (Array.isArray(errors) && errors.length > 0) return reasonOf(errors[0])
  if (typeof message === "string" && message !== "") {
    if (/timed? ?out/i.test(message)) return "timed out"
    // SqlError wraps a reason that wraps the server's or the socket's error (a message such as
    // "PgConnection: Query failed"): the innermost words are the useful ones.
    if (inner !== undefined && /^(PgConnection: |PgClient: |Failed to )/.test(message)) return reasonOf(inner)
    return firstLine(message)
  }
  return inner !== undefined ? reasonOf(inner) : "unknown error"
}

/** `host:port/database` of a connection URL (`h1:5432,h2:5433/database` with several hosts), never its password. */
export const targetOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "postgres"
    return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}/${database}`
  } catch {
    return hostsTargetOf(url) ?? "an unparsable URL"
  }
}

/**
 * What a failed statement says of its server as the primary to write to (primary.ts):
 * - `lost`: it is not, or cannot be reached: refused, reset or closed connections, a server
 *   shutting down or starting (57P01, 57P02, 57P03, class 08), a write refused because the server
 *   is in recovery (25006);
 * - `doubt`: no answer in time (a silent network, a frozen server, or only a slow statement):
 *   worth asking the server itself;
 * - `fine`: the server answered, whatever it said.
 */
export const primaryVerdict = (error: SqlError): "lost" | "doubt" | "fine" => {
  const { code } = sqlStateOf(error)
  if (code !== null) return /^08/.test(code) || ["25006", "57P01", "57P02", "57P03"].includes(code) ? "lost" : "fine"
  if (error.reason._tag === "ConnectionError") return isNoAnswer(error) ? "doubt" : "lost"
  return isUnavailable(error) ? "lost" : "fine"
}

/** The reason of a statement that got no answer within its deadline (pool.ts, listenChannel.ts). */
export class NoAnswer extends Error {}

const isNoAnswer = (error: SqlError): boolean => error.reason.cause instanceof NoAnswer

/**
 * Whether a failed statement means the database cannot be reached now (connection lost, server
 * shutting down, out of connections), as opposed to a statement the server rejected, which is a bug.
 */
export const isUnavailable = (error: SqlError): boolean => {
  const { code } = sqlStateOf(error)
  // 25006: a write sent to a server in recovery (a primary that came back as a standby).
  if (code !== null) return /^(08|53|57|58)/.test(code) || code === "25006"
  // The driver's own connection failures (refused, reset, closed, timed out) carry no SQLSTATE.
  if (error.reason._tag === "ConnectionError") return true
  const reason = reasonOf(error)
  return Object.values(networkReasons).includes(reason) || /connect|terminat|timed out|closed|ended|not queryable/i.test(reason)
}

/** Storage operations fail with StorageUnavailable when the database is out of reach; anything else is a defect. */
export const orUnavailable = <A, E, R = never>(
  effect: Effect.Effect<A, E | SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError> | StorageUnavailable, R> =>
  Effect.catchIf(
    effect,
    (error): error is SqlError => isSqlError(error),
    (error) =>
      isUnavailable(error)
        ? Effect.fail(new StorageUnavailable({ message: `PostgreSQL is unavailable: ${reasonOf(error)}` }))
        : Effect.die(error)
  ) as Effect.Effect<A, Exclude<E, SqlError> | StorageUnavailable, R>
