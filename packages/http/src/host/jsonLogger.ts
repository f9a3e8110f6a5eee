import { Cause, Logger, References } from "effect"
import { stdoutLines } from "./lineWriter.js"

const FIELD_ORDER = ["request_id", "method", "path", "status", "duration_ms", "workspace_id"]

/**
 * One log line: `time`, `level`, the message (when there is one), then the fields, the request's
 * first in the order people scan them.
 */
export const logLine = (
  date: Date,
  level: string,
  messages: ReadonlyArray<unknown>,
  annotations: Readonly<Record<string, unknown>>,
  cause: string | null
): string => {
  const entry: Record<string, unknown> = { time: date.toISOString(), level }
  if (messages.length > 0) entry["message"] = messages.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" ")
  const fields = new Map(Object.entries(annotations))
  for (const key of FIELD_ORDER) {
    if (fields.has(key)) entry[key] = fields.get(key)
    fields.delete(key)
  }
  for (const [key, value] of fields) entry[key] = value
  if (cause !== null) entry["cause"] = cause
  return JSON.stringify(entry) + "\n"
}

export interface RequestFields {
  readonly request_id: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly duration_ms: number
  readonly workspace_id: string | null
  readonly error?: string
}

/** The request log line: logLine's format, its fields already in FIELD_ORDER (once per request, kept cheap). */
export const requestLine = (date: Date, fields: RequestFields): string =>
  JSON.stringify({ time: date.toISOString(), level: fields.status >= 500 ? "error" : "info", ...fields }) + "\n"

/**
 * Every log line of the host is one JSON object on stdout (logLine); the request log line is
 * written by the host's front itself (requestFront.ts), without going through a logger.
 */
export const jsonLogger = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  const messages = (Array.isArray(message) ? message : [message]).filter((part) => part !== undefined)
  stdoutLines().write(
    logLine(
      date,
      logLevel.toLowerCase(),
      messages,
      fiber.getRef(References.CurrentLogAnnotations),
      cause.reasons.length > 0 ? Cause.pretty(cause) : null
    )
  )
})

/** The host's loggers: jsonLogger alone, or none at all. */
export const layer = (enabled: boolean) => Logger.layer(enabled ? [jsonLogger] : [])
