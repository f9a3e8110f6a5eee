import {
  activityParamsWhere,
  activityTypes,
  CONTACT_EXPANSIONS,
  CustomFieldObject,
  DEAL_EXPANSIONS,
  dealParamsWhere,
  FEED_MAX_WAIT_SECONDS,
  feedLimits,
  type IfMatch,
  parseFeedParams,
  parseFigureParams,
  type RecordTypeSet,
  parseLimit,
  type ValidationError
} from "@dealstream/core"
import { Result, Schema, SchemaTransformation } from "effect"

/**
 * The query parameters and request headers HttpApi decodes, each answering what the engine would
 * (the same status, code, message and path), so that a request with one bad value gets the same
 * 400 whether HttpApi or the engine refuses it, and the OpenAPI document is typed by the schema
 * that checks. The handlers still pass the raw strings on: the engine's parsers are the contract
 * for embedders and check everything again. What HttpApi cannot check alone stays with the
 * engine: filter, sort, search and cursor (they depend on the workspace's custom fields), ranges
 * spanning two parameters, and unknown parameter names (see request/queryParams.ts).
 *
 * On the wire every value is text (a parameter given twice arrives as a list, which is what the
 * type's message speaks of); a check says what the text must spell and documents the value it
 * stands for, which the OpenAPI document shows as the parameter's type (see openApi/parameters.ts).
 */

type JsonFragment = Record<string, unknown>

const GIVEN_ONCE = "must be given at most once"

/**
 * A path parameter as the engine may see it. `%00` decodes to U+0000, which no id or key holds and
 * PostgreSQL refuses as a bind parameter (a 500): it is an invalid path value (400) instead. (Lone
 * surrogates cannot arrive this way: a path that percent-decodes to one is no route.)
 */
export const PathText = Schema.String.check(
  Schema.makeFilter((text: string) => !text.includes("\u0000"), { message: "must not contain U+0000" })
)

/** A text value checked by `check` (a message when it is wrong), documented as `document`. */
const checkedText = (description: string, check: (raw: string) => string | undefined, document: JsonFragment) =>
  Schema.String.annotate({ description, message: GIVEN_ONCE }).check(
    Schema.makeFilter((raw: string) => check(raw), { toJsonSchema: () => document })
  )

/** A query parameter the client may leave out, taken as sent. */
export const optionalText = (description: string) => Schema.optionalKey(Schema.String.annotate({ description, message: GIVEN_ONCE }))

// U+0000 or a surrogate half without its partner: what the engine refuses in every list parameter
// before it reads any (`storableParams`), so that message comes first here too. (Core keeps its
// copy of this pattern private.)
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL cannot store in text, so it is matched on purpose.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const UNSTORABLE_MESSAGE = "contains U+0000 or an unpaired surrogate, which cannot be stored"

/** A list parameter: text the engine can store, then the engine's own check of it. */
const listValue = (description: string, check: (raw: string) => string | undefined, document: JsonFragment) =>
  Schema.optionalKey(checkedText(description, (raw) => (UNSTORABLE.test(raw) ? UNSTORABLE_MESSAGE : check(raw)), document))

/** The message the engine's parser answers for a wrong value (its one detail), or none. */
const messageOf = (result: Result.Result<unknown, ValidationError>): string | undefined =>
  Result.isFailure(result) ? (result.failure.details[0]?.message ?? result.failure.message) : undefined

// Deal list parameters are checked one at a time, so no custom field of the workspace is involved.
const EMPTY_CATALOG = new Map()

/** A deal list parameter, checked by the engine's parser of the deal list parameters. */
const dealParam = (name: string, description: string, document: JsonFragment) =>
  listValue(description, (raw) => messageOf(dealParamsWhere({ [name]: raw }, EMPTY_CATALOG)), document)

export const pagingParams = {
  limit: listValue("Page size, 1–100 (default 25). Out of range is 400, never clamped.", (raw) => messageOf(parseLimit(raw)), {
    type: "integer",
    minimum: 1,
    maximum: 100,
    default: 25
  }),
  cursor: optionalText("The `next_cursor` of the previous page; only valid with the same sort and filter.")
}

export const searchParams = {
  ...pagingParams,
  search: optionalText("Case-insensitive prefix search: every term must start a word of the record."),
  filter: optionalText(
    'URL-encoded JSON filter: {"field": value} or {"field": {"$op": operand}} with $eq $ne $in $nin $gt $gte ' +
      "$lt $lte $contains $starts_with $exists, combined with $and, $or, $not. Example: " +
      '{"$or":[{"source":"webinar"},{"industry":{"$in":["saas"]}}]}'
  ),
  sort: optionalText("A sort field, `-field` for descending; ties are broken by id.")
}

export const dealParams = {
  ...searchParams,
  pipeline_id: optionalText("Only deals of this pipeline."),
  stage_id: optionalText("Only deals in this stage."),
  owner_id: optionalText("Only deals of this owner."),
  status: dealParam("status", "open, won or lost.", { enum: ["open", "won", "lost"] }),
  contact_id: optionalText("Only deals associated with this contact."),
  company_id: dealParam(
    "company_id",
    "Only deals whose company_id is this company; a company that is not live (unknown, in the trash) lists none.",
    { type: "string" }
  ),
  value_min: dealParam("value_min", "Minimum value (inclusive).", { type: "number" }),
  value_max: dealParam("value_max", "Maximum value (inclusive).", { type: "number" }),
  close_date_from: dealParam("close_date_from", "Earliest expected_close_date, YYYY-MM-DD (inclusive).", { format: "date" }),
  close_date_to: dealParam("close_date_to", "Latest expected_close_date, YYYY-MM-DD (inclusive).", { format: "date" }),
  closed_from: dealParam("closed_from", "Only deals closed (won or lost) on or after this day, YYYY-MM-DD (UTC).", { format: "date" }),
  closed_to: dealParam("closed_to", "Only deals closed on or before this day, YYYY-MM-DD (UTC, inclusive).", { format: "date" })
}

/** An activity list parameter, checked by the engine's parser of the activity list parameters. */
const activityParam = (name: string, description: string, document: JsonFragment) =>
  listValue(description, (raw) => messageOf(activityParamsWhere({ [name]: raw }, EMPTY_CATALOG)), document)

/** A figures parameter (pipeline summary, conversion, forecast), checked by the engine's parser of them. */
const figureParam = (
  name: "owner_id" | "as_of" | "from" | "to" | "interval" | "pipeline_id",
  description: string,
  document: JsonFragment
) =>
  checkedText(
    description,
    (raw) => (UNSTORABLE.test(raw) ? UNSTORABLE_MESSAGE : messageOf(parseFigureParams({ [name]: raw }, [name]))),
    document
  )

const figureOwner = Schema.optionalKey(figureParam("owner_id", "Only deals of this owner (as they are owned now).", { type: "string" }))

/** A window's end, `[from, to)` in UTC dates: both required. */
const windowParams = {
  from: figureParam("from", "First day of the window, YYYY-MM-DD (UTC, inclusive).", { format: "date" }).pipe(
    Schema.annotateKey({ messageMissingKey: "is required (a date YYYY-MM-DD)" })
  ),
  to: figureParam("to", "Day after the window, YYYY-MM-DD (UTC, exclusive); after from.", { format: "date" }).pipe(
    Schema.annotateKey({ messageMissingKey: "is required (a date YYYY-MM-DD)" })
  )
}

export const summaryParams = {
  owner_id: figureOwner,
  as_of: Schema.optionalKey(
    figureParam(
      "as_of",
      "A timestamp (RFC 3339 with a time zone): the pipeline as it stood then, its deals as they were then (those in the " +
        "trash then left out), folded from the workspace's deal history (it costs what that history does).",
      { type: "string", format: "date-time", examples: ["2026-11-01T09:00:00Z"] }
    )
  )
}

export const conversionParams = { ...windowParams, owner_id: figureOwner }

export const forecastParams = {
  pipeline_id: Schema.optionalKey(
    figureParam("pipeline_id", "Only deals of this pipeline (400 when it does not exist); all by default.", { type: "string" })
  ),
  owner_id: figureOwner,
  interval: Schema.optionalKey(
    figureParam("interval", "month (the default) or quarter.", { enum: ["month", "quarter"], default: "month" })
  ),
  ...windowParams
}

export const activityParams = {
  ...pagingParams,
  filter: searchParams.filter,
  sort: searchParams.sort,
  type: activityParam("type", "Only activities of this type.", { enum: [...activityTypes] }),
  contact_id: activityParam("contact_id", "Only activities linked to this contact (none when it is not live).", {}),
  deal_id: activityParam("deal_id", "Only activities linked to this deal (none when it is not live).", {}),
  company_id: activityParam("company_id", "Only activities linked to this company (none when it is not live).", {}),
  owner_id: activityParam("owner_id", "Only activities of this owner.", {}),
  done: activityParam("done", "true: only done ones (done_at set); false: only open ones.", { enum: ["true", "false"] })
}

/** One of `values`, or `message`. */
const oneOf = (values: ReadonlyArray<string>, message: string) => (raw: string) => (values.includes(raw) ? undefined : message)

export const deliveryParams = (statuses: ReadonlyArray<string>) => ({
  status: listValue("pending, succeeded, failed or cancelled.", oneOf(statuses, `must be one of ${statuses.join(", ")}`), {
    enum: statuses
  }),
  ...pagingParams
})

/** GET /v1/events's parameters, checked by the engine's parser of the feed's parameters for the record types served. */
export const feedParams = (served: RecordTypeSet) => {
  const feedParam = (name: string, description: string, document: JsonFragment) =>
    listValue(description, (raw) => messageOf(parseFeedParams({ [name]: raw }, served)), document)
  return {
    after: optionalText(
      "The `next_cursor` of the previous read: the feed goes on after it. Absent: from the oldest event. " +
        "A cursor of another workspace, or not one of ours, is 400."
    ),
    types: feedParam(
      "types",
      "Comma-separated event types, exact (`deal.stage_changed`) or a prefix (`contact.*`); every type by default. " +
        "A name that matches no type of the feed is 400.",
      { type: "string", examples: ["contact.*,deal.stage_changed"] }
    ),
    limit: feedParam("limit", `Events per read, 1–${feedLimits.max} (default ${feedLimits.default}). Out of range is 400, never clamped.`, {
      type: "integer",
      minimum: 1,
      maximum: feedLimits.max,
      default: feedLimits.default
    }),
    wait: feedParam(
      "wait",
      `Seconds (0–${FEED_MAX_WAIT_SECONDS}, default 0) to hold the request while there is nothing after the cursor: ` +
        "it answers as soon as an event arrives, or with an empty page when the time is up.",
      { type: "integer", minimum: 0, maximum: FEED_MAX_WAIT_SECONDS, default: 0 }
    )
  }
}

/**
 * The trash's parameters: its `type` is one of `types`, the served record types' names
 * (core's recordTypeSet; every record type has the soft-delete life, plug-ins included). The trash
 * reads its type before anything else (U+0000 included); so does the custom field list its object.
 */
export const trashParams = (types: ReadonlyArray<string>) => {
  const named = types.join(", ")
  return {
    type: checkedText(`${named} (required).`, oneOf(types, `must be one of ${named}`), { enum: types }).pipe(
      Schema.annotateKey({ messageMissingKey: `is required (${named})` })
    ),
    ...pagingParams
  }
}

// Custom fields are defined on the built-in record types only.
const FIELD_OBJECTS: ReadonlyArray<string> = CustomFieldObject.literals
const objectsNamed = FIELD_OBJECTS.join(", ")

export const customFieldParams = {
  object: Schema.optionalKey(
    checkedText(`${objectsNamed}; all when absent.`, oneOf(FIELD_OBJECTS, `must be one of ${objectsNamed}`), { enum: FIELD_OBJECTS })
  )
}

/** The contact list: search, filter and sort, and the contacts of one company. */
export const contactListParams = {
  ...searchParams,
  company_id: listValue(
    "Only contacts whose company_ids hold this company; a company that is not live (unknown, in the trash) lists none.",
    (raw) => (raw === "" ? "must not be empty" : undefined),
    { type: "string" }
  )
}

/**
 * An `expand` parameter of one record: some of `values`, comma-separated, checked as the engine's
 * parser checks it (core's parseExpansions).
 */
const expandParam = (values: ReadonlyArray<string>, description: string) => {
  const names = values.join("|")
  return Schema.optionalKey(
    checkedText(
      description,
      (raw) => {
        if (raw.trim() === "") return undefined
        const unknown = raw
          .split(",")
          .map((part) => part.trim())
          .find((part) => !values.includes(part))
        return unknown === undefined ? undefined : `has an unknown value ${JSON.stringify(unknown)}; use ${values.join(", ")}`
      },
      { pattern: `^\\s*$|^\\s*(?:${names})\\s*(?:,\\s*(?:${names})\\s*)*$` }
    )
  )
}

const asOf = Schema.optionalKey(
  Schema.String.annotate({
    description:
      "A timestamp (RFC 3339 with a time zone): the record as it stood then, 404 if it did not exist or was in the " +
      "trash then. Cannot be combined with expand.",
    examples: ["2026-11-01T09:00:00Z"]
  })
)

/** GET of one deal. */
export const dealGetParams = {
  as_of: asOf,
  expand: expandParam(
    DEAL_EXPANSIONS,
    "Comma-separated: `companies` adds `companies`, the deal's company as a full object in a list of none or one " +
      "(the key and shape a contact's expand=companies has; company_id stays), `activities` adds `activities`, its " +
      "live activities, newest first, at most 100. Cannot be combined with as_of."
  )
}

export const contactParams = {
  as_of: asOf,
  expand: expandParam(
    CONTACT_EXPANSIONS,
    "Comma-separated: `deals` (full deal objects in place of deal_ids), `companies` (full company objects in place of " +
      "company_ids, the primary first), `activities` (its live activities, newest first, at most 100; the changes the " +
      "event log recorded are at /v1/contacts/{id}/history). Cannot be combined with as_of."
  )
}

const VERSION = /^(?:W\/)?"?(\d{1,15})"?$/

/**
 * `If-Match` as the engine wants it: absent or `*` → null (unconditional), `"7"` → 7. Only one
 * version may be named: our ETags are versions, so a list could never match more than one.
 */
const IfMatchValue = Schema.String.check(
  Schema.makeFilter((header: string) => header.trim() === "*" || VERSION.test(header.trim()), {
    message: 'must be an ETag from a previous response ("<version>") or *',
    toJsonSchema: () => ({ pattern: '^(?:\\*|(?:W/)?"?[0-9]{1,15}"?)$' })
  })
)
  .annotate({
    description: 'An ETag from a previous response (`"<version>"`) or `*`: the write happens only if it is still current (else 412).'
  })
  .pipe(
    Schema.decodeTo(
      Schema.NullOr(Schema.Number),
      SchemaTransformation.transform<IfMatch, string>({
        decode: (header) => (header.trim() === "*" ? null : Number(VERSION.exec(header.trim())![1])),
        encode: (version) => (version === null ? "*" : `"${version}"`)
      })
    )
  )

export const ifMatchHeader = { "if-match": Schema.optionalKey(IfMatchValue) }

/** An absent If-Match: the write is unconditional. */
export const ifMatchOf = (headers: { readonly "if-match"?: IfMatch }): IfMatch => headers["if-match"] ?? null

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255
export const IDEMPOTENCY_KEY_MESSAGE = `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`

export const idempotencyHeader = {
  "idempotency-key": Schema.optionalKey(
    Schema.String.check(
      Schema.makeFilter((key: string) => key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH, {
        message: IDEMPOTENCY_KEY_MESSAGE,
        toJsonSchema: () => ({ minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH })
      })
    ).annotate({
      description:
        "Up to 255 characters. The same key with the same body within 24 h replays the stored answer (Idempotent-Replayed: true); with another body it is 409."
    })
  )
}

export const idParams = { id: PathText }
