import { Cause, Logger, References } from "effect"

const FIELD_ORDER = ["request_id", "method", "path", "status", "duration_ms", "workspace_id"]

/**
 * Every log line of the host is one JSON object on stdout: `time`, `level`, the message (when
 * there is one) and the annotations, which is where the request log puts its fields.
 */
export const jsonLogger = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  const messages = (Array.isArray(message) ? message : [message]).filter((part) => part !== undefined)
  const entry: Record<string, unknown> = { time: date.toISOString(), level: logLevel.toLowerCase() }
  if (messages.length > 0) entry["message"] = messages.map((part) => typeof part === "string" ? part : JSON.stringify(part)).join(" ")
  // The request fields go first, in the order people scan them.
  const fields = new Map(Object.entries(fiber.getRef(References.CurrentLogAnnotations)))
  for (const key of FIELD_ORDER) {
    if (fields.has(key)) entry[key] = fields.get(key)
    fields.delete(key)
  }
  for (const [key, value] of fields) entry[key] = value
  if (cause.reasons.length > 0) entry["cause"] = Cause.pretty(cause)
  process.stdout.write(JSON.stringify(entry) + "\n")
})

/** The host's loggers: jsonLogger alone, or none at all. */
export const layer = (enabled: boolean) => Logger.layer(enabled ? [jsonLogger] : [])
