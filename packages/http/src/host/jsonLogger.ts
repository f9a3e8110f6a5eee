import { Cause, HashMap, Logger } from "effect"

const FIELD_ORDER = ["request_id", "method", "path", "status", "duration_ms", "workspace_id"]

/**
 * Every log line of the host is one JSON object on stdout: `time`, `level`, the message (when
 * there is one) and the annotations, which is where the request log puts its fields.
 */
export const jsonLogger = Logger.make(({ annotations, cause, date, logLevel, message }) => {
  const messages = (Array.isArray(message) ? message : [message]).filter((part) => part !== undefined)
  const entry: Record<string, unknown> = { time: date.toISOString(), level: logLevel.label.toLowerCase() }
  if (messages.length > 0) entry["message"] = messages.map((part) => typeof part === "string" ? part : JSON.stringify(part)).join(" ")
  // Annotations come unordered; the request fields go first, in the order people scan them.
  const fields = new Map(HashMap.toEntries(annotations))
  for (const key of FIELD_ORDER) {
    if (fields.has(key)) entry[key] = fields.get(key)
    fields.delete(key)
  }
  for (const [key, value] of fields) entry[key] = value
  if (!Cause.isEmpty(cause)) entry["cause"] = Cause.pretty(cause)
  process.stdout.write(JSON.stringify(entry) + "\n")
})

export const layer = (enabled: boolean) => Logger.replace(Logger.defaultLogger, enabled ? jsonLogger : Logger.none)
