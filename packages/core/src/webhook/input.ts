import type { RecordTypeSet } from "../record/recordTypeSet.js"
import { Result } from "effect"
import { answer, notAnObject } from "../field/recordBody.js"
import { type ErrorDetail, ValidationError } from "../errors.js"
import { isJsonObject } from "../json.js"
import { normaliseTimestamp } from "../query/calendar.js"
import { WEBHOOK_ALL_EVENTS, isWebhookEventType } from "./eventTypes.js"
import { STANDARD_SECRET_MAX_BYTES, STANDARD_SECRET_MIN_BYTES, STANDARD_SECRET_PREFIX, standardSecretKey } from "./secrets.js"
import { checkWebhookUrl } from "./url.js"

export interface WebhookCreate {
  readonly url: string
  readonly events: ReadonlyArray<string>
  /** `null`: payloads are sent unsigned. */
  readonly secret: string | null
}

export interface WebhookPatch {
  readonly url?: string
  readonly events?: ReadonlyArray<string>
  readonly secret?: string | null
  /**
   * Seconds the secret being replaced stays valid beside the new one (a rotation's overlap); only
   * with a new `secret`.
   */
  readonly previous_secret_expires_in?: number
  /**
   * Starts a recovery of the events recorded since this instant (canonical ISO): with
   * `status: "active"` when the webhook is failed.
   */
  readonly recover_since?: string
  /** Only ever `"active"`: a client may reactivate a failed webhook, never fail one. */
  readonly status?: "active"
}

export interface WebhookInputOptions {
  /** Development only: accept http:// and non-public IP literals. */
  readonly allowInsecure: boolean
  /** The record types whose events a webhook may name: the built-ins' unless given. */
  readonly recordTypes?: RecordTypeSet
}

export const WEBHOOK_SECRET_MIN = 8
export const WEBHOOK_SECRET_MAX = 512
/** Seven days: long enough to roll a receiver's configuration out, short enough to retire a leak. */
export const WEBHOOK_SECRET_OVERLAP_MAX = 604_800

/** Checks one key; Left holds its error details (several for an array). */
type Check<A> = (value: unknown, path: string, options: WebhookInputOptions) => Result.Result<A, ReadonlyArray<ErrorDetail>>
type Value<C> = C extends Check<infer A> ? A : never
/** The accepted keys: the required ones are sure to be there, or the body was refused. */
type Accepted<C, R extends keyof C> = { [K in R]: Value<C[K]> } & { [K in Exclude<keyof C, R>]?: Value<C[K]> }

const at =
  (path: string) =>
  (message: string): ReadonlyArray<ErrorDetail> => [{ path, message }]

const url: Check<string> = (value, path, options) => Result.mapError(checkWebhookUrl(value, options.allowInsecure), at(path))

/** Duplicates are dropped, first occurrence kept; `"*"` must stand alone. */
const events: Check<ReadonlyArray<string>> = (value, path, options) => {
  if (!Array.isArray(value)) return Result.fail(at(path)("must be an array of event names"))
  if (value.length === 0) return Result.fail(at(path)("must not be empty"))
  const details: Array<ErrorDetail> = []
  const names: Array<string> = []
  for (const [i, item] of value.entries()) {
    const itemPath = `${path}[${i}]`
    if (typeof item !== "string") details.push({ path: itemPath, message: "must be a string" })
    else if (item !== WEBHOOK_ALL_EVENTS && !isWebhookEventType(item, options.recordTypes)) {
      details.push({ path: itemPath, message: "is not a known event" })
    } else if (!names.includes(item)) names.push(item)
  }
  if (details.length === 0 && names.includes(WEBHOOK_ALL_EVENTS) && names.length > 1) {
    details.push({ path: `${path}[${value.indexOf(WEBHOOK_ALL_EVENTS)}]`, message: `"*" cannot be combined with event names` })
  }
  return details.length > 0 ? Result.fail(details) : Result.succeed(names)
}

// Visible ASCII only: Standard Webhooks libraries take a "raw" secret's characters as bytes, so a
// non-ASCII secret would sign differently on each side and every verification would fail.
const SECRET = /^[\x21-\x7e]*$/

const secret: Check<string | null> = (value, path) => {
  if (value === null) return Result.succeed(null)
  if (typeof value !== "string") return Result.fail(at(path)("must be a string or null"))
  if (value.length < WEBHOOK_SECRET_MIN || value.length > WEBHOOK_SECRET_MAX) {
    return Result.fail(at(path)(`must be ${WEBHOOK_SECRET_MIN} to ${WEBHOOK_SECRET_MAX} characters`))
  }
  if (!SECRET.test(value)) return Result.fail(at(path)("must contain only visible ASCII characters (no spaces)"))
  // A whsec_ secret is signed with its decoded bytes, so one that does not decode is refused
  // rather than silently signed with its characters, which no receiver in default mode would match.
  return value.startsWith(STANDARD_SECRET_PREFIX) && standardSecretKey(value) === null
    ? Result.fail(
        at(path)(
          `a ${STANDARD_SECRET_PREFIX} secret must be followed by standard padded base64 of ` +
            `${STANDARD_SECRET_MIN_BYTES} to ${STANDARD_SECRET_MAX_BYTES} bytes`
        )
      )
    : Result.succeed(value)
}

const overlap: Check<number> = (value, path) =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= WEBHOOK_SECRET_OVERLAP_MAX
    ? Result.succeed(value)
    : Result.fail(at(path)(`must be a whole number of seconds from 0 to ${WEBHOOK_SECRET_OVERLAP_MAX}`))

/** Read as the query language reads timestamps, kept in canonical form (the job shows it so). */
const recoverySince: Check<string> = (value, path) => {
  const since = typeof value === "string" ? normaliseTimestamp(value) : null
  return since === null ? Result.fail(at(path)("must be an ISO 8601 timestamp with a time zone")) : Result.succeed(since)
}

const status: Check<"active"> = (value, path) =>
  value === "active" ? Result.succeed(value) : Result.fail(at(path)(`can only be set to "active"`))

// Named as read-only rather than unknown, to help the client.
const READ_ONLY = ["id", "status", "last_delivery_at", "has_secret", "recovery", "created_at", "updated_at"]

/** Every offending key is reported, the missing required ones first. */
const readBody = <C extends Record<string, Check<unknown>>, R extends keyof C & string = never>(
  body: unknown,
  checks: C,
  required: ReadonlyArray<R>,
  options: WebhookInputOptions
): Result.Result<Accepted<C, R>, ValidationError> => {
  if (!isJsonObject(body)) return Result.fail(notAnObject())
  const details: Array<ErrorDetail> = required
    .filter((key) => !Object.hasOwn(body, key))
    .map((key) => ({ path: key, message: "is required" }))
  const fields: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    // hasOwn, not `in`: `constructor` must not pass for a field.
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined
    if (check === undefined) {
      details.push({ path: key, message: READ_ONLY.includes(key) ? "is read-only" : "is not a known field" })
      continue
    }
    Result.match(check(value, key, options), {
      onFailure: (problems) => details.push(...problems),
      onSuccess: (accepted) => {
        fields[key] = accepted
      }
    })
  }
  return answer(details, fields as Accepted<C, R>)
}

export const parseWebhookCreate = (body: unknown, options: WebhookInputOptions): Result.Result<WebhookCreate, ValidationError> =>
  Result.map(readBody(body, { url, events, secret }, ["url", "events"], options), (fields) => ({
    url: fields.url,
    events: fields.events,
    secret: fields.secret ?? null
  }))

/** Only the keys the body gave: a PATCH changes nothing else. */
export const parseWebhookPatch = (body: unknown, options: WebhookInputOptions): Result.Result<WebhookPatch, ValidationError> =>
  Result.flatMap(
    readBody(body, { url, events, secret, previous_secret_expires_in: overlap, recover_since: recoverySince, status }, [], options),
    (patch) =>
      // An overlap keeps the secret being replaced: it needs a new one to replace it with.
      patch.previous_secret_expires_in !== undefined && (patch.secret === undefined || patch.secret === null)
        ? Result.fail(ValidationError.at("previous_secret_expires_in", "needs a new secret in the same request"))
        : Result.succeed(patch)
  )

/** `POST /v1/webhooks/:id/recover`: `{since}`, nothing else. */
export const parseRecoverBody = (body: unknown, options: WebhookInputOptions): Result.Result<{ readonly since: string }, ValidationError> =>
  readBody(body, { since: recoverySince }, ["since"], options)
