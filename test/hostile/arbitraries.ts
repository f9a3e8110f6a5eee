import type { RecordType } from "@dealstream/core"
import fc from "fast-check"
import type { RawRequest } from "./rawHttp.js"

/*
 * Hostile requests for the fuzz suite. An arbitrary yields a Plan (what to send, printable when a
 * property fails); `encodePlan` turns it into bytes. Plans are built from the fixtures a host was
 * seeded with, so they can name real ids and cursors of the caller's and of another workspace.
 */

// ---------------------------------------------------------------------------------------------
// Text

/** Strings that have broken parsers, query builders and object code elsewhere. */
export const INJECTIONS: ReadonlyArray<string> = [
  "'; DROP TABLE ds_events; --",
  '"; DROP TABLE ds_contacts; --',
  "' OR '1'='1",
  "1 OR 1=1",
  "' || pg_sleep(5) || '",
  "'); DELETE FROM ds_deals; --",
  "$where",
  "$regex",
  "$expr",
  "$gt",
  "$ne",
  "->",
  "->>",
  "#>> '{email}'",
  "::text",
  "::jsonb",
  "data->>'email'",
  "email')::int --",
  "%",
  "_",
  "%_%",
  "\\",
  "\\\\",
  "\\%",
  "'",
  '"',
  "`",
  ";",
  "--",
  "/*",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud83d",
  "\ufeff",
  "\u202e",
  "\u2028",
  "\uffff",
  "😀",
  "İ",
  "ß",
  "null",
  "NaN",
  "Infinity",
  "-0",
  "1e400",
  "[]",
  "{}",
  "",
  " ",
  "\t",
  "${7*7}",
  "<script>alert(1)</script>",
  "../../../etc/passwd",
  "%00",
  "%2e%2e%2f",
  "%ZZ"
]

/** UTF-16 code units, lone surrogates and NUL included. */
const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 12 })

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: codeUnits },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...INJECTIONS), fc.string({ maxLength: 8 })).map(([a, b]) => a + b) },
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 12_000 }).map((n) => "x".repeat(n)) }
)

/** Numbers at the edges of what JSON, doubles and numeric columns hold. */
export const edgeNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1, -1, 0.1, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, -(2 ** 63))
)

/** An object with exactly these own keys, `__proto__` included (plain assignment would drop it). */
export const objectOf = (entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  return out
}

const hostileKey = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "$where", "email", "id"), hostileText)

export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    edgeNumber,
    hostileText,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie("value")), { maxLength: 4 }).map(objectOf)
  )
})).value

// ---------------------------------------------------------------------------------------------
// Fixtures and ids

export type IdType = RecordType | "pipeline" | "stage" | "webhook" | "delivery" | "event"
export const ID_TYPES: ReadonlyArray<IdType> = [
  "contact",
  "deal",
  "company",
  "activity",
  "pipeline",
  "stage",
  "webhook",
  "delivery",
  "event"
]
const PREFIX: Readonly<Record<IdType, string>> = {
  contact: "con",
  deal: "deal",
  company: "comp",
  activity: "act",
  pipeline: "pipe",
  stage: "stage",
  webhook: "wh",
  delivery: "dlv",
  event: "evt"
}

/** What the host was seeded with: ids of the caller's workspace (`own`) and of another (`other`). */
export interface Fixtures {
  readonly own: Readonly<Record<IdType, ReadonlyArray<string>>>
  readonly other: Readonly<Record<IdType, ReadonlyArray<string>>>
  /** The caller's custom fields. */
  readonly customFields: ReadonlyArray<{ readonly object: RecordType; readonly key: string }>
  /** Real `next_cursor`s, by the list path they came from. */
  readonly cursors: ReadonlyArray<string>
  /** An http URL the host may deliver to (its receiver answers 200). */
  readonly receiverUrl: string
  readonly ownKey: string
  readonly otherKey: string
}

const pick = <A>(values: ReadonlyArray<A>): fc.Arbitrary<A> => fc.constantFrom(...values)

const validLookingId = (type: IdType) => fc.stringMatching(/^[0-9a-hjkmnp-tv-z]{26}$/).map((tail) => `${PREFIX[type]}_${tail}`)

/** An id for a place that wants one of `type`: real ones, foreign ones, wrong types, inventions. */
export const idFor = (fixtures: Fixtures, type: IdType): fc.Arbitrary<string> => {
  const own = fixtures.own[type]
  const other = fixtures.other[type]
  const ownAny = ID_TYPES.flatMap((t) => fixtures.own[t])
  return fc.oneof(
    ...(own.length > 0 ? [{ weight: 5, arbitrary: pick(own) }] : []),
    ...(other.length > 0 ? [{ weight: 2, arbitrary: pick(other) }] : []),
    { weight: 1, arbitrary: pick(ownAny) },
    { weight: 1, arbitrary: validLookingId(type) },
    { weight: 2, arbitrary: hostileText }
  )
}

// ---------------------------------------------------------------------------------------------
// Routes

type Segment = string | { readonly slot: IdType | "object" | "key" }
type BodyShape =
  | "contact"
  | "contactPatch"
  | "pipeline"
  | "pipelinePatch"
  | "deal"
  | "dealPatch"
  | "stageMove"
  | "customField"
  | "webhook"
  | "webhookPatch"
  | "recover"
  | "contactBatch"
  | "dealBatch"
  | "company"
  | "companyPatch"
  | "companyBatch"
  | "activity"
  | "activityPatch"

export interface Route {
  readonly method: string
  readonly path: ReadonlyArray<Segment>
  readonly params: ReadonlyArray<string>
  readonly body: BodyShape | null
}

const id = (slot: IdType) => ({ slot })
const LIST = ["limit", "cursor", "search", "filter", "sort"]
const PAGING = ["limit", "cursor"]
const DEAL_LIST = [
  ...LIST,
  "pipeline_id",
  "stage_id",
  "owner_id",
  "status",
  "contact_id",
  "company_id",
  "value_min",
  "value_max",
  "close_date_from",
  "close_date_to"
]
const ACTIVITY_LIST = [...PAGING, "filter", "sort", "type", "contact_id", "deal_id", "company_id", "owner_id", "done"]

/** Every route of packages/http/src/{group}/Api.ts, with the query parameters and body it takes. */
export const ROUTES: ReadonlyArray<Route> = [
  { method: "GET", path: ["v1", "contacts"], params: [...LIST, "company_id"], body: null },
  { method: "GET", path: ["v1", "contacts", id("contact")], params: ["expand", "as_of"], body: null },
  { method: "POST", path: ["v1", "contacts"], params: [], body: "contact" },
  { method: "POST", path: ["v1", "contacts", "batch"], params: [], body: "contactBatch" },
  { method: "POST", path: ["v1", "deals", "batch"], params: [], body: "dealBatch" },
  { method: "PATCH", path: ["v1", "contacts", id("contact")], params: [], body: "contactPatch" },
  { method: "DELETE", path: ["v1", "contacts", id("contact")], params: [], body: null },
  { method: "POST", path: ["v1", "contacts", id("contact"), "restore"], params: [], body: null },
  { method: "GET", path: ["v1", "pipelines"], params: [], body: null },
  { method: "GET", path: ["v1", "pipelines", id("pipeline")], params: [], body: null },
  { method: "POST", path: ["v1", "pipelines"], params: [], body: "pipeline" },
  { method: "PATCH", path: ["v1", "pipelines", id("pipeline")], params: [], body: "pipelinePatch" },
  { method: "GET", path: ["v1", "deals"], params: DEAL_LIST, body: null },
  { method: "GET", path: ["v1", "deals", id("deal")], params: ["as_of", "expand"], body: null },
  { method: "POST", path: ["v1", "deals"], params: [], body: "deal" },
  { method: "PATCH", path: ["v1", "deals", id("deal")], params: [], body: "dealPatch" },
  { method: "PUT", path: ["v1", "deals", id("deal"), "stage"], params: [], body: "stageMove" },
  { method: "DELETE", path: ["v1", "deals", id("deal")], params: [], body: null },
  { method: "POST", path: ["v1", "deals", id("deal"), "restore"], params: [], body: null },
  { method: "GET", path: ["v1", "deals", id("deal"), "timeline"], params: PAGING, body: null },
  { method: "GET", path: ["v1", "companies"], params: LIST, body: null },
  { method: "GET", path: ["v1", "companies", id("company")], params: ["expand"], body: null },
  { method: "POST", path: ["v1", "companies"], params: [], body: "company" },
  { method: "POST", path: ["v1", "companies", "batch"], params: [], body: "companyBatch" },
  { method: "PATCH", path: ["v1", "companies", id("company")], params: [], body: "companyPatch" },
  { method: "DELETE", path: ["v1", "companies", id("company")], params: [], body: null },
  { method: "POST", path: ["v1", "companies", id("company"), "restore"], params: [], body: null },
  { method: "GET", path: ["v1", "companies", id("company"), "history"], params: PAGING, body: null },
  { method: "GET", path: ["v1", "activities"], params: ACTIVITY_LIST, body: null },
  { method: "GET", path: ["v1", "activities", id("activity")], params: [], body: null },
  { method: "POST", path: ["v1", "activities"], params: [], body: "activity" },
  { method: "PATCH", path: ["v1", "activities", id("activity")], params: [], body: "activityPatch" },
  { method: "DELETE", path: ["v1", "activities", id("activity")], params: [], body: null },
  { method: "POST", path: ["v1", "activities", id("activity"), "restore"], params: [], body: null },
  { method: "GET", path: ["v1", "activities", id("activity"), "history"], params: PAGING, body: null },
  { method: "GET", path: ["v1", "custom-fields"], params: ["object"], body: null },
  { method: "POST", path: ["v1", "custom-fields"], params: [], body: "customField" },
  { method: "DELETE", path: ["v1", "custom-fields", { slot: "object" }, { slot: "key" }], params: [], body: null },
  { method: "GET", path: ["v1", "trash"], params: ["type", ...PAGING], body: null },
  { method: "GET", path: ["v1", "webhooks"], params: [], body: null },
  { method: "GET", path: ["v1", "webhooks", id("webhook")], params: [], body: null },
  { method: "POST", path: ["v1", "webhooks"], params: [], body: "webhook" },
  { method: "PATCH", path: ["v1", "webhooks", id("webhook")], params: [], body: "webhookPatch" },
  { method: "DELETE", path: ["v1", "webhooks", id("webhook")], params: [], body: null },
  { method: "GET", path: ["v1", "webhooks", id("webhook"), "deliveries"], params: ["status", ...PAGING], body: null },
  { method: "GET", path: ["v1", "webhooks", id("webhook"), "deliveries", id("delivery")], params: [], body: null },
  { method: "POST", path: ["v1", "webhooks", id("webhook"), "deliveries", id("delivery"), "replay"], params: [], body: null },
  { method: "POST", path: ["v1", "webhooks", id("webhook"), "recover"], params: [], body: "recover" },
  { method: "GET", path: ["v1", "contacts", id("contact"), "history"], params: PAGING, body: null },
  { method: "GET", path: ["v1", "deals", id("deal"), "history"], params: PAGING, body: null },
  { method: "POST", path: ["v1", "webhooks", id("webhook"), "test"], params: [], body: null },
  { method: "GET", path: ["v1", "webhook-event-types"], params: [], body: null },
  { method: "GET", path: ["v1", "events"], params: ["after", "types", "limit", "wait"], body: null },
  { method: "GET", path: ["v1", "events", id("event")], params: [], body: null },
  { method: "GET", path: ["healthz"], params: [], body: null },
  { method: "GET", path: ["readyz"], params: [], body: null },
  { method: "GET", path: ["v1", "openapi.json"], params: [], body: null },
  { method: "GET", path: ["docs"], params: [], body: null }
]

export const ROUTES_WITH_IDS = ROUTES.filter((route) => route.path.some((segment) => typeof segment !== "string"))
export const ROUTES_WITH_PARAMS = ROUTES.filter((route) => route.params.length > 0)
export const ROUTES_WITH_BODIES = ROUTES.filter((route) => route.body !== null)

/** Percent-encodes every byte but the unreserved ones; a lone surrogate becomes its WTF-8 bytes. */
export const percentEncode = (text: string): string => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    const isHigh = unit >= 0xd800 && unit <= 0xdbff
    const next = text.charCodeAt(i + 1)
    const point = isHigh && next >= 0xdc00 && next <= 0xdfff ? text.codePointAt(i)! : unit
    if (point > 0xffff) i++
    const char = String.fromCodePoint(point)
    if (/^[A-Za-z0-9\-._~]$/.test(char)) {
      out += char
      continue
    }
    const bytes =
      point >= 0xd800 && point <= 0xdfff
        ? [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f)]
        : [...Buffer.from(char, "utf8")]
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")
  }
  return out
}

/** A path segment as sent: percent-encoded, or one of the spellings routers trip over. */
const segmentText = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: text.map(percentEncode) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", ".", "..", "%", "%Z", "%FF", "%00", "%2F", "%2e%2e", "%C0%AF", "%ED%A0%80", "x%2Fy", "a;b=c", "*")
    }
  )

const pathOf = (fixtures: Fixtures, route: Route): fc.Arbitrary<string> =>
  fc
    .tuple(
      ...route.path.map((segment): fc.Arbitrary<string> => {
        if (typeof segment === "string") return fc.constant(segment)
        if (segment.slot === "object") return segmentText(fc.oneof(fc.constantFrom("contact", "deal"), hostileText))
        if (segment.slot === "key") {
          const keys = fixtures.customFields.map((field) => field.key)
          return segmentText(fc.oneof(...(keys.length > 0 ? [pick(keys)] : []), hostileText))
        }
        return segmentText(idFor(fixtures, segment.slot))
      })
    )
    .map((segments) => `/${segments.join("/")}`)

/** A path no route has: unknown resources, wrong versions, doubled slashes, odd spellings. */
const unknownPath: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "/",
    "/v1",
    "/v1/",
    "/v2/contacts",
    "/V1/CONTACTS",
    "//v1/contacts",
    "/v1/contacts/",
    "/v1/contacts/x/y/z",
    "/v1/companies",
    "/v1/contacts;x=1",
    "/v1/contacts/..%2F..%2Fhealthz",
    "/v1/webhooks/wh_x/deliveries/dlv_x/replay/again",
    "/v1/custom-fields/contact",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/v1/openapi.json/x",
    "/docs/..",
    "/healthz%00"
  ),
  hostileText.map((text) => `/v1/${percentEncode(text)}`)
)

// ---------------------------------------------------------------------------------------------
// Query strings

/** Cursors: real ones, real ones tampered with, forged payloads and plain garbage. */
export const cursorText = (fixtures: Fixtures): fc.Arbitrary<string> => {
  const real = fixtures.cursors.length > 0 ? pick(fixtures.cursors) : fc.constant("")
  const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64url")
  return fc.oneof(
    real,
    fc
      .tuple(real, fc.nat(), fc.constantFrom("A", "_", "-", "=", "%", "+", "/", "\u0000"))
      .map(([c, at, ch]) => (c.length === 0 ? ch : c.slice(0, at % c.length) + ch + c.slice((at % c.length) + 1))),
    fc.tuple(real, fc.nat()).map(([c, keep]) => c.slice(0, c.length === 0 ? 0 : keep % c.length)),
    real.map((c) => `${c}${c}`),
    // The payload re-encoded with other values and no valid check, or with JSON of another shape.
    fc.tuple(real, jsonValue, hostileText).map(([c, value, idText]) => {
      let fingerprint: unknown = "x"
      try {
        fingerprint = (JSON.parse(Buffer.from(c, "base64url").toString("utf8")) as Array<unknown>)[0]
      } catch {
        // a real cursor always parses; an empty pool gives "x"
      }
      return base64(JSON.stringify([fingerprint, value, idText, "0000000000000000"]))
    }),
    jsonValue.map((value) => base64(JSON.stringify(value) ?? "null")),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("base64url")),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("base64")),
    hostileText
  )
}

const CONTACT_FIELDS = [
  "id",
  "email",
  "first_name",
  "last_name",
  "phone",
  "title",
  "company_id",
  "source",
  "owner_id",
  "deal_ids",
  "company_ids",
  "created_at",
  "updated_at"
]
const DEAL_FIELDS = [
  "id",
  "name",
  "pipeline_id",
  "stage_id",
  "value",
  "currency",
  "expected_close_date",
  "owner_id",
  "contact_ids",
  "company_id",
  "status",
  "created_at",
  "updated_at"
]
const COMPANY_FIELDS = ["name", "domain", "industry", "size", "contact_ids", "deal_ids"]
const ACTIVITY_FIELDS = ["type", "subject", "body", "due_at", "done_at", "done", "deal_ids"]
const OPERATORS = ["$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$contains", "$starts_with", "$exists"]
const FOREIGN_OPERATORS = ["$where", "$regex", "$like", "$expr", "$elemMatch", "$", "eq", "->>", "$and", "$or", "$not", "$in ", "$EQ"]

/** Filter JSON: the grammar of API.md with fields, operators and operands drawn wide. */
export const filterValue = (fixtures: Fixtures): fc.Arbitrary<unknown> => {
  const field = fc.oneof(
    {
      weight: 4,
      arbitrary: pick([
        ...CONTACT_FIELDS,
        ...DEAL_FIELDS,
        ...COMPANY_FIELDS,
        ...ACTIVITY_FIELDS,
        ...fixtures.customFields.map((f) => f.key)
      ])
    },
    {
      weight: 1,
      arbitrary: pick(["data->>'email'", "email::text", "email'--", "email OR 1=1", 'email"', "data", "deleted_at", "workspace_id"])
    },
    { weight: 1, arbitrary: hostileText }
  )
  const operand = fc.oneof(
    { weight: 3, arbitrary: jsonValue },
    { weight: 2, arbitrary: hostileText },
    { weight: 1, arbitrary: fc.array(fc.oneof(hostileText, edgeNumber, fc.constant(null)), { maxLength: 120 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "2026-01-01",
        "2026-02-30",
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00.000+14:00",
        "9999-12-31T23:59:59.999Z",
        "0000-01-01"
      )
    }
  )
  const operators = fc
    .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: pick(OPERATORS) }, { weight: 1, arbitrary: pick(FOREIGN_OPERATORS) }), operand), {
      minLength: 0,
      maxLength: 3
    })
    .map(objectOf)
  return fc.letrec<{ filter: unknown; clause: readonly [string, unknown] }>((tie) => ({
    filter: fc.array(tie("clause"), { maxLength: 3 }).map((clauses) => objectOf(clauses as ReadonlyArray<readonly [string, unknown]>)),
    clause: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.tuple(field, operand),
      fc.tuple(field, operators),
      fc.tuple(fc.constantFrom("$and", "$or"), fc.oneof(fc.array(tie("filter"), { maxLength: 3 }), jsonValue)),
      fc.tuple(fc.constant("$not"), fc.oneof(tie("filter"), jsonValue))
    ) as fc.Arbitrary<readonly [string, unknown]>
  })).filter
}

const deepText = (open: string, close: string, leaf = "1") =>
  fc.integer({ min: 11, max: 3_000 }).map((depth) => open.repeat(depth) + leaf + close.repeat(depth))

const filterText = (fixtures: Fixtures): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 5, arbitrary: filterValue(fixtures).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: jsonValue.map((value) => JSON.stringify(value) ?? "null") },
    {
      weight: 1,
      arbitrary: filterValue(fixtures).chain((value) => {
        const text = JSON.stringify(value)
        return fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut))
      })
    },
    { weight: 1, arbitrary: deepText('{"$not":', "}", "{}") },
    { weight: 1, arbitrary: deepText("[", "]").map((inner) => `{"email":{"$in":${inner}}}`) },
    { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 9_000 }).map((n) => `{"email":"${"x".repeat(n)}"}`) },
    { weight: 1, arbitrary: hostileText }
  )

const numberText = fc.oneof(
  edgeNumber.map(String),
  fc.constantFrom(
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "0x10",
    "1_000",
    " 5",
    "5 ",
    "+5",
    "05",
    "",
    "-",
    ".",
    "1.",
    ".5",
    "1e",
    "9".repeat(400)
  )
)
const dateText = fc.oneof(
  fc.constantFrom("2026-01-01", "2026-02-30", "2026-13-01", "0000-01-01", "9999-12-31", "2026-1-1", "20260101", "2026-01-01T00:00:00Z", ""),
  hostileText
)

/** A value for one query parameter, shaped after what that parameter takes. */
export const paramValue = (fixtures: Fixtures, name: string): fc.Arbitrary<string> => {
  const anyText = hostileText
  switch (name) {
    case "limit":
      return fc.oneof(fc.integer({ min: -3, max: 150 }).map(String), numberText)
    case "cursor":
    case "after":
      return cursorText(fixtures)
    case "types":
      return fc.oneof(
        fc
          .array(
            fc.constantFrom(
              "contact.*",
              "deal.*",
              "contact.created",
              "deal.stage_changed",
              "deal.purged",
              "*",
              "contact.",
              "webhook.test",
              ""
            ),
            { maxLength: 4 }
          )
          .map((types) => types.join(",")),
        anyText
      )
    case "wait":
      // Never a wait the host would hold a request for: a fuzz run must not sleep (the feed's e2e tests wait).
      return fc.oneof(
        fc.constantFrom("0", "00", "31", "-1", "1.5", "1e1", "", " 1"),
        anyText.filter((text) => !/^[0-9]+$/.test(text) || Number(text) === 0 || Number(text) > 30)
      )
    case "search":
      return fc.oneof(
        anyText,
        fc.array(fc.constantFrom("ada", "a", "@", "example.com", "%", "_", "'"), { maxLength: 12 }).map((words) => words.join(" "))
      )
    case "filter":
      return filterText(fixtures)
    case "sort":
      return fc.oneof(
        fc
          .tuple(
            fc.constantFrom("", "-", "--", "+", " "),
            pick([...CONTACT_FIELDS, ...DEAL_FIELDS, ...COMPANY_FIELDS, ...ACTIVITY_FIELDS, ...fixtures.customFields.map((f) => f.key)])
          )
          .map(([sign, field]) => sign + field),
        anyText
      )
    case "expand":
      return fc.oneof(
        fc.constantFrom(
          "deals",
          "activities",
          "companies",
          "contacts",
          "deals,activities",
          "activities,deals",
          "contacts,deals,activities",
          "deals,deals",
          "deals,",
          ",",
          "DEALS",
          "deals activities",
          "timeline"
        ),
        anyText
      )
    case "object":
    case "type":
      return fc.oneof(
        fc.constantFrom(
          "contact",
          "deal",
          "company",
          "activity",
          "note",
          "task",
          "meeting",
          "contacts",
          "CONTACT",
          "pipeline",
          "webhook",
          ""
        ),
        anyText
      )
    case "done":
      return fc.oneof(fc.constantFrom("true", "false", "TRUE", "1", "yes", ""), anyText)
    case "company_id":
      return idFor(fixtures, "company")
    case "deal_id":
      return idFor(fixtures, "deal")
    case "status":
      return fc.oneof(fc.constantFrom("open", "won", "lost", "pending", "succeeded", "failed", "cancelled", "OPEN", ""), anyText)
    case "pipeline_id":
      return idFor(fixtures, "pipeline")
    case "stage_id":
      return idFor(fixtures, "stage")
    case "contact_id":
      return idFor(fixtures, "contact")
    case "owner_id":
      return fc.oneof(fc.constantFrom("user_1", ""), anyText)
    case "value_min":
    case "value_max":
      return numberText
    case "close_date_from":
    case "close_date_to":
      return dateText
    case "as_of":
      return fc.oneof(fc.constantFrom("2026-01-01T00:00:00Z", "2999-01-01T00:00:00.000Z", "1970-01-01T00:00:00+01:00"), dateText, anyText)
    default:
      return anyText
  }
}

const ALL_PARAMS = [...new Set([...DEAL_LIST, ...ACTIVITY_LIST, "expand", "object", "type"])]

/** A query string: some of the route's parameters, maybe a foreign one or a repeated one. */
export const queryFor = (fixtures: Fixtures, params: ReadonlyArray<string>): fc.Arbitrary<string> => {
  const values = new Map(params.map((name) => [name, paramValue(fixtures, name).map((value): [string, string] => [name, value])]))
  const own =
    params.length === 0
      ? fc.constant<Array<[string, string]>>([])
      : fc.subarray([...params], { minLength: 1 }).chain((names) => fc.tuple(...names.map((name) => values.get(name)!)))
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: 1, arbitrary: fc.tuple(pick(ALL_PARAMS), hostileText).map(([n, v]): Array<[string, string]> => [[n, v]]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.oneof(fc.constantFrom("__proto__", "constructor", "filter[email]", "limit[]", "$where"), hostileText), hostileText)
        .map(([n, v]): Array<[string, string]> => [[n, v]])
    }
  )
  return fc.tuple(own, extra, fc.constantFrom("percent", "loose")).map(([mine, more, style]) => {
    const pairs = [...mine, ...more]
    if (pairs.length === 0) return ""
    // "loose" leaves JSON punctuation as it is, as hand-written clients do.
    const encode =
      style === "percent"
        ? percentEncode
        : (text: string) =>
            percentEncode(text).replace(/%(22|7B|7D|5B|5D|3A|2C|24|27)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    return `?${pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&")}`
  })
}

// ---------------------------------------------------------------------------------------------
// Bodies

export type Body =
  | { readonly _tag: "None" }
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Bytes"; readonly bytes: ReadonlyArray<number>; readonly note: string }

const localPart = fc.stringMatching(/^[a-z0-9]{1,10}$/)
const secretText = fc.stringMatching(/^[!-~]{8,40}$/)

/** A valid-looking record for the body shape (valid for the seeded host more often than not). */
export const recordFor = (fixtures: Fixtures, shape: BodyShape): fc.Arbitrary<Record<string, unknown>> => {
  const own = fixtures.own
  const some = <A>(values: ReadonlyArray<A>, fallback: A) => (values.length > 0 ? pick(values) : fc.constant(fallback))
  const contactFields = fixtures.customFields.filter((f) => f.object === "contact").map((f) => f.key)
  switch (shape) {
    case "contact":
      return fc.record(
        {
          email: localPart.map((local) => `fz_${local}@example.com`),
          first_name: fc.constantFrom("Ada", "Grace", "Zoë"),
          source: fc.constantFrom("webinar", "referral"),
          ...(contactFields.includes("industry") ? { industry: fc.constantFrom("saas", "fintech") } : {})
        },
        { requiredKeys: ["email"] }
      )
    case "contactPatch":
      return fc.record({ first_name: fc.constantFrom("Ada", null), title: fc.constantFrom("CTO", "") }, { requiredKeys: [] })
    case "pipeline":
      return fc.record({
        name: fc.constantFrom("Fuzz", "Renewals"),
        stages: fc.array(fc.record({ name: fc.constantFrom("One", "Two") }), { minLength: 1, maxLength: 3 })
      })
    case "pipelinePatch":
      return fc.record(
        {
          name: fc.constantFrom("Renamed"),
          stages: fc.array(fc.record({ id: some(own.stage, "stage_x"), name: fc.constantFrom("Kept") }), { minLength: 1, maxLength: 3 })
        },
        { requiredKeys: [] }
      )
    case "deal":
      return fc.record(
        {
          name: fc.constantFrom("Fuzz deal", "Big one"),
          pipeline_id: some(own.pipeline, "pipe_x"),
          stage_id: some(own.stage, "stage_x"),
          value: fc.oneof(fc.integer({ min: 0, max: 100_000 }), edgeNumber),
          currency: fc.constantFrom("EUR", "USD", "XXX", "eur"),
          expected_close_date: fc.constantFrom("2026-12-31", "2027-02-28"),
          contact_ids: fc.subarray([...own.contact], { maxLength: Math.min(2, own.contact.length) })
        },
        { requiredKeys: ["name", "pipeline_id"] }
      )
    case "dealPatch":
      return fc.record(
        { value: fc.integer({ min: 0, max: 1000 }), stage_id: some(own.stage, "stage_x"), status: fc.constantFrom("open", "won", "lost") },
        { requiredKeys: [] }
      )
    case "stageMove":
      return fc.record({ stage_id: some(own.stage, "stage_x"), reason: fc.constantFrom("moved", "") }, { requiredKeys: ["stage_id"] })
    case "customField":
      return fc.record(
        {
          object: fc.constantFrom("contact", "deal"),
          key: fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/),
          label: fc.constantFrom("Label"),
          type: fc.constantFrom("text", "number", "boolean", "date", "enum"),
          options: fc.constantFrom(["a", "b"], [], null)
        },
        { requiredKeys: ["object", "key", "label", "type"] }
      )
    case "webhook":
      return fc.record(
        {
          url: fc.nat({ max: 99 }).map((n) => `${fixtures.receiverUrl}/fuzz/${n}`),
          events: fc.oneof(fc.constant(["*"]), fc.subarray(["contact.created", "deal.created", "deal.stage_changed"], { minLength: 1 })),
          secret: fc.option(secretText)
        },
        { requiredKeys: ["url", "events"] }
      )
    case "webhookPatch":
      return fc.record(
        {
          url: fc.constant(`${fixtures.receiverUrl}/patched`),
          events: fc.constant(["*"]),
          secret: fc.option(secretText),
          previous_secret_expires_in: fc.integer({ min: -1, max: 700_000 }),
          recover_since: fc.constantFrom("2026-01-01T00:00:00Z", "yesterday"),
          status: fc.constant("active")
        },
        { requiredKeys: [] }
      )
    case "recover":
      return fc.record({ since: fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-01-01", "now") }, { requiredKeys: ["since"] })
    case "contactBatch":
      return fc.record(
        {
          atomic: fc.boolean(),
          operations: fc.array(
            fc.oneof(
              recordFor(fixtures, "contact").map((data) => ({ op: "create", data })),
              fc.tuple(some(own.contact, "con_x"), recordFor(fixtures, "contactPatch")).map(([id, data]) => ({ op: "update", id, data })),
              recordFor(fixtures, "contact").map((data) => ({ op: "upsert", match: { email: data["email"] }, data: { first_name: "Up" } }))
            ),
            { minLength: 1, maxLength: 4 }
          )
        },
        { requiredKeys: ["operations"] }
      )
    case "company":
      return fc.record(
        {
          name: fc.constantFrom("Fuzz Inc", "Zoë GmbH"),
          domain: fc.oneof(
            localPart.map((local) => `fz-${local}.example.com`),
            fc.constantFrom("ACME.COM", "not a domain", "")
          ),
          industry: fc.constantFrom("saas", null),
          size: fc.oneof(fc.integer({ min: 0, max: 10_000 }), edgeNumber)
        },
        { requiredKeys: ["name"] }
      )
    case "companyPatch":
      return fc.record(
        {
          name: fc.constantFrom("Renamed Inc"),
          domain: fc.constantFrom("renamed.example.com", null),
          size: fc.integer({ min: -1, max: 100 })
        },
        { requiredKeys: [] }
      )
    case "companyBatch":
      return fc.record(
        {
          atomic: fc.boolean(),
          operations: fc.array(
            fc.oneof(
              recordFor(fixtures, "company").map((data) => ({ op: "create", data })),
              fc.tuple(some(own.company, "comp_x"), recordFor(fixtures, "companyPatch")).map(([id, data]) => ({ op: "update", id, data })),
              recordFor(fixtures, "company").map((data) => ({ op: "upsert", match: { domain: data["domain"] }, data: { industry: "up" } }))
            ),
            { minLength: 1, maxLength: 4 }
          )
        },
        { requiredKeys: ["operations"] }
      )
    case "activity":
      return fc.record(
        {
          type: fc.constantFrom("note", "task", "call", "meeting", "email", "memo"),
          subject: fc.constantFrom("Call back", "Renewal"),
          due_at: fc.constantFrom("2027-01-01T09:00:00Z", "2027-02-30T00:00:00Z", null),
          done: fc.boolean(),
          contact_ids: fc.subarray([...own.contact], { maxLength: Math.min(2, own.contact.length) }),
          deal_ids: fc.subarray([...own.deal], { maxLength: Math.min(1, own.deal.length) }),
          company_ids: fc.subarray([...own.company], { maxLength: Math.min(1, own.company.length) })
        },
        { requiredKeys: ["type", "subject"] }
      )
    case "activityPatch":
      return fc.record(
        { subject: fc.constantFrom("Moved"), done: fc.boolean(), due_at: fc.constantFrom("2027-03-01T10:00:00+02:00", null) },
        { requiredKeys: [] }
      )
    case "dealBatch":
      return fc.record(
        {
          atomic: fc.boolean(),
          operations: fc.array(
            fc.oneof(
              recordFor(fixtures, "deal").map((data) => ({ op: "create", data })),
              fc.tuple(some(own.deal, "deal_x"), recordFor(fixtures, "dealPatch")).map(([id, data]) => ({ op: "update", id, data }))
            ),
            { minLength: 1, maxLength: 4 }
          )
        },
        { requiredKeys: ["operations"] }
      )
  }
}

/** The keys a mutation may touch: the record's own, every known field, and hostile ones. */
const mutationKey = (fixtures: Fixtures) =>
  fc.oneof(
    pick([
      ...CONTACT_FIELDS,
      ...DEAL_FIELDS,
      ...COMPANY_FIELDS,
      ...ACTIVITY_FIELDS,
      "stages",
      "events",
      "url",
      "secret",
      "previous_secret_expires_in",
      "recover_since",
      "since",
      "status",
      "reason",
      "object",
      "key",
      "label",
      "type",
      "options",
      ...fixtures.customFields.map((f) => f.key)
    ]),
    hostileKey
  )

const mutationValue = (fixtures: Fixtures) =>
  fc.oneof(
    jsonValue,
    hostileText,
    idFor(fixtures, "contact"),
    fc.array(idFor(fixtures, "contact"), { maxLength: 3 }),
    fc.integer({ min: 2_000, max: 200_000 }).map((n) => "y".repeat(n)),
    fc.integer({ min: 100, max: 5_000 }).map((n) => Array.from({ length: n }, (_, i) => ({ name: `s${i}` })))
  )

type Mutation = { readonly _tag: "Set"; readonly key: string; readonly value: unknown } | { readonly _tag: "Delete"; readonly key: string }

/** A near-valid record: the valid-looking one with up to three fields set to something else or removed. */
export const nearValid = (fixtures: Fixtures, shape: BodyShape): fc.Arbitrary<unknown> =>
  fc
    .tuple(
      recordFor(fixtures, shape),
      fc.array(
        fc.oneof(
          fc.record({ _tag: fc.constant("Set" as const), key: mutationKey(fixtures), value: mutationValue(fixtures) }),
          fc.record({ _tag: fc.constant("Delete" as const), key: mutationKey(fixtures) })
        ) as fc.Arbitrary<Mutation>,
        { maxLength: 3 }
      )
    )
    .map(([record, mutations]) => {
      const entries = new Map(Object.entries(record))
      for (const mutation of mutations) {
        if (mutation._tag === "Set") entries.set(mutation.key, mutation.value)
        else entries.delete(mutation.key)
      }
      return objectOf([...entries])
    })

/** Bytes that are not UTF-8: a lone 0xFF, overlong forms, encoded surrogates, past U+10FFFF, cut short. */
export const INVALID_UTF8: ReadonlyArray<ReadonlyArray<number>> = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0xc3]
]

const invalidUtf8Body = (fixtures: Fixtures, shape: BodyShape): fc.Arbitrary<Body> =>
  fc
    .tuple(
      recordFor(fixtures, shape),
      pick(INVALID_UTF8),
      fc.nat(),
      fc.constantFrom("in a value", "in a key", "anywhere", "raw NUL in a value")
    )
    .map(([record, bad, at, where]) => {
      const text = JSON.stringify(record)
      let bytes: Array<number>
      if (where === "anywhere") {
        const buffer = Buffer.from(text, "utf8")
        const cut = at % (buffer.length + 1)
        bytes = [...buffer.subarray(0, cut), ...bad, ...buffer.subarray(cut)]
      } else {
        const key = Object.keys(record)[at % Object.keys(record).length]!
        const marker = where === "in a key" ? `"${key}"` : `"${key}":"`
        const index = text.indexOf(marker)
        const head = Buffer.from(index < 0 ? text : text.slice(0, index + (where === "in a key" ? 2 : marker.length)), "utf8")
        const tail = Buffer.from(index < 0 ? "" : text.slice(index + (where === "in a key" ? 2 : marker.length)), "utf8")
        bytes = [...head, ...(where === "raw NUL in a value" ? [0x00] : bad), ...tail]
      }
      return { _tag: "Bytes" as const, bytes, note: `${where}: ${bad.map((b) => b.toString(16)).join(" ")}` }
    })

/** JSON texts that are not what JSON.stringify would write: deep, wide, huge, duplicated, broken. */
const oddJsonText = (fixtures: Fixtures, shape: BodyShape): fc.Arbitrary<string> => {
  const base = recordFor(fixtures, shape).map((record) => JSON.stringify(record))
  const inField = (inner: fc.Arbitrary<string>) => fc.tuple(base, inner).map(([text, value]) => `${text.slice(0, -1)},"title":${value}}`)
  return fc.oneof(
    fc.integer({ min: 50, max: 12_000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
    fc.integer({ min: 50, max: 12_000 }).map((depth) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth)),
    inField(fc.integer({ min: 50, max: 12_000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth))),
    inField(fc.integer({ min: 50, max: 12_000 }).map((depth) => '{"$not":'.repeat(depth) + "{}" + "}".repeat(depth))),
    inField(fc.integer({ min: 1_000, max: 150_000 }).map((n) => `[${"0,".repeat(n)}0]`)),
    fc.integer({ min: 1_000, max: 150_000 }).map((n) => `[${"{},".repeat(n)}{}]`),
    base.map((text) => `${text.slice(0, -1)},"value":1e400}`),
    base.map((text) => `${text.slice(0, -1)},"value":-0,"score":123456789012345678901234567890}`),
    base.map((text) => `${text.slice(0, -1)},"email":"dup@example.com","email":{"$ne":null}}`),
    base.map((text) => `{"__proto__":{"email":"proto@example.com","admin":true},${text.slice(1)}`),
    base.map((text) => `{"constructor":{"prototype":{"polluted":true}},${text.slice(1)}`),
    base.map((text) => `${text.slice(0, -1)},"title":"\\u0000","\\ud800":"\\udc00x"}`),
    base.map((text) => `\ufeff${text}`),
    base.map((text) => `${text} trailing`),
    base.map((text) => `${text}${text}`),
    base.map((text) => text.replaceAll('"', "'")),
    base.chain((text) => fc.nat({ max: text.length - 1 }).map((cut) => text.slice(0, cut))),
    fc.constantFrom("", " ", "null", "true", "0", '"text"', "[]", "{}", "NaN", '{"a":1,}', "// comment\n{}", "{'a':1}", "\u0000")
  )
}

/** A body for a route that takes `shape`. */
export const bodyFor = (fixtures: Fixtures, shape: BodyShape): fc.Arbitrary<Body> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant<Body>({ _tag: "None" }) },
    { weight: 5, arbitrary: nearValid(fixtures, shape).map((value): Body => ({ _tag: "Json", value })) },
    { weight: 2, arbitrary: jsonValue.map((value): Body => ({ _tag: "Json", value })) },
    { weight: 3, arbitrary: oddJsonText(fixtures, shape).map((text): Body => ({ _tag: "Text", text })) },
    { weight: 2, arbitrary: invalidUtf8Body(fixtures, shape) }
  )

// ---------------------------------------------------------------------------------------------
// Headers

/** A header value as bytes may carry it: latin1, CR and LF removed (they would end the header). */
const headerText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
  hostileText.map((text) =>
    [...text]
      .map((c) => (c.charCodeAt(0) > 0xff ? "?" : c))
      .join("")
      .replace(/[\r\n]/g, "")
  )
)

export interface Headers {
  readonly authorization: string | null
  readonly contentType: string | null
  readonly ifMatch: string | null
  readonly idempotencyKey: string | null
  readonly requestId: string | null
  readonly extra: ReadonlyArray<readonly [string, string]>
}

export const headersFor = (fixtures: Fixtures, hostile: boolean): fc.Arbitrary<Headers> => {
  const absent = fc.constant(null)
  const sometimes = (arbitrary: fc.Arbitrary<string>) => fc.oneof({ weight: hostile ? 1 : 4, arbitrary: absent }, { weight: 1, arbitrary })
  const authorization = fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${fixtures.ownKey}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${fixtures.otherKey}`) },
    {
      weight: hostile ? 4 : 1,
      arbitrary: fc.oneof(
        absent,
        fc.constantFrom(
          "Bearer",
          "Bearer ",
          `bearer ${fixtures.ownKey}`,
          `Bearer  ${fixtures.ownKey}  `,
          `Bearer ${fixtures.ownKey}x`,
          `Token ${fixtures.ownKey}`,
          `Basic ${Buffer.from(`${fixtures.ownKey}:`).toString("base64")}`,
          `Bearer ${fixtures.ownKey} ${fixtures.otherKey}`
        ),
        headerText.map((text) => `Bearer ${text}`),
        headerText
      )
    }
  )
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant("application/json") },
    {
      weight: hostile ? 4 : 1,
      arbitrary: fc.oneof(
        absent,
        fc.constantFrom(
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          "application/json;charset=latin1",
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/json-patch+json",
          "application/merge-patch+json",
          "application/jsonx",
          "",
          "*/*",
          "application/json, text/plain"
        ),
        headerText
      )
    }
  )
  return fc.record({
    authorization,
    contentType,
    ifMatch: sometimes(
      fc.oneof(
        fc.nat({ max: 5 }).map((n) => `"${n}"`),
        fc.constantFrom("*", 'W/"1"', '"1", "2"', '"999999999999999999999"', "1", '""', '"-1"', '"1.5"'),
        headerText
      )
    ),
    idempotencyKey: sometimes(
      fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,20}$/), fc.constantFrom("", " ", "k".repeat(256), "k".repeat(255)), headerText)
    ),
    requestId: sometimes(fc.oneof(headerText, fc.constantFrom("x".repeat(201), "trace-1"))),
    extra: hostile
      ? fc.array(
          fc.tuple(
            fc.oneof(
              fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
              fc.constantFrom("x-forwarded-for", "x-http-method-override", "accept", "accept-encoding", "origin", "cookie", "expect")
            ),
            headerText
          ),
          { maxLength: 3 }
        )
      : fc.constant([])
  })
}

// ---------------------------------------------------------------------------------------------
// Plans

/** One request: everything in it printable, so a failing property names what was sent. */
export interface Plan {
  readonly method: string
  readonly target: string
  readonly headers: Headers
  readonly body: Body
}

const routeRequest = (
  fixtures: Fixtures,
  route: Route,
  options: {
    readonly hostileQuery: boolean
    readonly hostileHeaders: boolean
    readonly hostileBody: boolean
    readonly method?: fc.Arbitrary<string>
  }
): fc.Arbitrary<Plan> =>
  fc.record({
    method: options.method ?? fc.constant(route.method),
    target: fc
      .tuple(
        pathOf(fixtures, route),
        options.hostileQuery || route.params.length > 0
          ? fc.oneof(
              { weight: options.hostileQuery ? 4 : 1, arbitrary: queryFor(fixtures, route.params) },
              { weight: options.hostileQuery ? 1 : 3, arbitrary: fc.constant("") }
            )
          : fc.constant("")
      )
      .map(([path, query]) => path + query),
    headers: headersFor(fixtures, options.hostileHeaders),
    body:
      route.body === null
        ? fc.oneof(
            { weight: 6, arbitrary: fc.constant<Body>({ _tag: "None" }) },
            { weight: 1, arbitrary: jsonValue.map((value): Body => ({ _tag: "Json", value })) }
          )
        : options.hostileBody
          ? bodyFor(fixtures, route.body)
          : nearValid(fixtures, route.body).map((value): Body => ({ _tag: "Json", value }))
  })

/**
 * One arbitrary per route, built once: building fast-check arbitraries costs more than drawing from
 * them, so a `chain` that builds them anew for every request would spend most of a run on it.
 */
const eachRoute = (routes: ReadonlyArray<Route>, build: (route: Route) => fc.Arbitrary<Plan>): fc.Arbitrary<Plan> =>
  fc.oneof(...routes.map(build))

export const bodyPlans = (fixtures: Fixtures) =>
  eachRoute(ROUTES_WITH_BODIES, (route) => routeRequest(fixtures, route, { hostileQuery: false, hostileHeaders: false, hostileBody: true }))

export const queryPlans = (fixtures: Fixtures) =>
  eachRoute(ROUTES, (route) => routeRequest(fixtures, route, { hostileQuery: true, hostileHeaders: false, hostileBody: false }))

export const idPlans = (fixtures: Fixtures) =>
  eachRoute(ROUTES_WITH_IDS, (route) => routeRequest(fixtures, route, { hostileQuery: false, hostileHeaders: false, hostileBody: false }))

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "get", "FOO", "G E T"]

const methodOf = (route: Route) => fc.oneof({ weight: 6, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: pick(METHODS) })

export const headerPlans = (fixtures: Fixtures) =>
  eachRoute(ROUTES, (route) =>
    routeRequest(fixtures, route, { hostileQuery: false, hostileHeaders: true, hostileBody: false, method: methodOf(route) })
  )

/** Anything at all: every part hostile at once, unknown paths and methods included. */
export const anyPlans = (fixtures: Fixtures) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: eachRoute(ROUTES, (route) =>
        routeRequest(fixtures, route, { hostileQuery: true, hostileHeaders: true, hostileBody: true, method: methodOf(route) })
      )
    },
    {
      weight: 1,
      arbitrary: fc.record({
        method: pick(METHODS),
        target: fc.tuple(unknownPath, queryFor(fixtures, [])).map(([path, query]) => path + query),
        headers: headersFor(fixtures, true),
        body: fc.oneof(
          fc.constant<Body>({ _tag: "None" }),
          jsonValue.map((value): Body => ({ _tag: "Json", value }))
        )
      })
    }
  )

export const bodyBytes = (body: Body): Buffer | undefined => {
  switch (body._tag) {
    case "None":
      return undefined
    case "Json":
      return Buffer.from(JSON.stringify(body.value) ?? "null", "utf8")
    case "Text":
      return Buffer.from(body.text, "utf8")
    case "Bytes":
      return Buffer.from(body.bytes)
  }
}

// ---------------------------------------------------------------------------------------------
// Bytes on the wire

/** A request written byte by byte: what fetch and node:http refuse to send. */
export interface WirePlan {
  readonly note: string
  readonly method: string
  readonly target: string | ReadonlyArray<number>
  /** A null value writes the name alone as the whole line. */
  readonly headers: ReadonlyArray<readonly [string, string | ReadonlyArray<number> | null]>
  readonly body?: string | undefined
  /** Content-Length as sent; absent: the body's length; null: none. */
  readonly contentLength?: string | null | undefined
  readonly version?: string | undefined
}

const ascii = (text: string) => [...Buffer.from(text, "latin1")]
const CONTROL = [...Array.from({ length: 32 }, (_, i) => i).filter((c) => c !== 9 && c !== 10 && c !== 13), 0x7f]

export const wirePlans = (fixtures: Fixtures): fc.Arbitrary<WirePlan> => {
  const auth = ["Authorization", `Bearer ${fixtures.ownKey}`] as const
  const json = ["Content-Type", "application/json"] as const
  const contact = recordFor(fixtures, "contact").map((record) => JSON.stringify(record))
  const badBytes = fc.oneof(
    pick(INVALID_UTF8),
    fc.array(pick(CONTROL), { minLength: 1, maxLength: 3 }),
    fc.constant(ascii("zoë")).map(() => [...Buffer.from("zoë", "utf8")])
  )
  const route = pick(ROUTES)
  const plainPath = route.map((r) => `/${r.path.map((s) => (typeof s === "string" ? s : "x")).join("/")}`)
  return fc.oneof(
    // Raw bytes in the request target: path segments, parameter names and values.
    fc.tuple(plainPath, badBytes, fc.constantFrom("path", "query value", "query name", "filter")).map(
      ([path, bytes, where]): WirePlan => ({
        note: `raw bytes in the ${where}`,
        method: "GET",
        target:
          where === "path"
            ? [...ascii(`${path}/`), ...bytes]
            : where === "query value"
              ? [...ascii(`${path}?search=`), ...bytes]
              : where === "query name"
                ? [...ascii(`${path}?`), ...bytes, ...ascii("=1")]
                : [...ascii(`${path}?filter={"email":"`), ...bytes, ...ascii('"}')],
        headers: [auth]
      })
    ),
    // Raw bytes in header values and names.
    fc
      .tuple(
        plainPath,
        fc.constantFrom("Authorization", "Idempotency-Key", "If-Match", "X-Request-Id", "Content-Type", "X-Anything"),
        badBytes,
        fc.boolean()
      )
      .map(
        ([path, name, bytes, inName]): WirePlan => ({
          note: inName ? "raw bytes in a header name" : `raw bytes in ${name}`,
          method: "POST",
          target: path,
          headers: inName
            ? [auth, json, [`X-${Buffer.from(bytes).toString("latin1")}`, "1"]]
            : [...(name === "Authorization" ? [] : [auth]), json, [name, [...ascii(name === "Authorization" ? "Bearer " : "k"), ...bytes]]],
          body: "{}"
        })
      ),
    // Framing: lengths that disagree with the body, both length and chunking, broken chunks. (A
    // length longer than the body is left out: the host rightly waits for the rest.)
    fc
      .tuple(
        contact,
        fc.constantFrom(
          "shorter",
          "not a number",
          "negative",
          "past 2^64",
          "over 1 MiB",
          "two lengths",
          "length and chunked",
          "chunked",
          "bad chunk",
          "gzip"
        )
      )
      .map(([body, how]): WirePlan => {
        const base = { method: "POST", target: "/v1/contacts", note: `framing: ${how}` }
        switch (how) {
          case "shorter":
            return { ...base, headers: [auth, json], body, contentLength: String(Math.max(0, Buffer.byteLength(body) - 5)) }
          case "not a number":
            return { ...base, headers: [auth, json], body, contentLength: "12abc" }
          case "negative":
            return { ...base, headers: [auth, json], body, contentLength: "-1" }
          case "past 2^64":
            return { ...base, headers: [auth, json], body, contentLength: "99999999999999999999999" }
          case "over 1 MiB":
            // Declared, not sent: the host must refuse it from the header alone.
            return { ...base, headers: [auth, json], body, contentLength: String(2 * 1024 * 1024) }
          case "two lengths":
            return { ...base, headers: [auth, json, ["Content-Length", "2"]], body, contentLength: String(Buffer.byteLength(body)) }
          case "length and chunked":
            return {
              ...base,
              headers: [auth, json, ["Transfer-Encoding", "chunked"]],
              body: `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
              contentLength: String(Buffer.byteLength(body))
            }
          case "chunked":
            return {
              ...base,
              headers: [auth, json, ["Transfer-Encoding", "chunked"]],
              body: `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
              contentLength: null
            }
          case "bad chunk":
            return {
              ...base,
              headers: [auth, json, ["Transfer-Encoding", "chunked"]],
              body: `zz\r\n${body}\r\n0\r\n\r\n`,
              contentLength: null
            }
          default:
            return {
              ...base,
              headers: [auth, json, ["Transfer-Encoding", "gzip, chunked"]],
              body: `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
              contentLength: null
            }
        }
      }),
    // Request lines and header blocks no client library would write.
    fc.tuple(plainPath, fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/9.9", "HTTP/1.1 extra", "", "http/1.1")).map(
      ([path, version]): WirePlan => ({
        note: `version ${JSON.stringify(version)}`,
        method: "GET",
        target: path,
        headers: [auth],
        version
      })
    ),
    fc.constantFrom<WirePlan>(
      { note: "absolute-form target", method: "GET", target: "http://127.0.0.1/v1/contacts", headers: [auth] },
      { note: "asterisk-form target", method: "OPTIONS", target: "*", headers: [auth] },
      { note: "target without a slash", method: "GET", target: "v1/contacts", headers: [auth] },
      { note: "header without a colon", method: "GET", target: "/v1/contacts", headers: [auth, ["X-No-Colon-Here", null]] },
      { note: "obs-fold", method: "GET", target: "/v1/contacts", headers: [["Authorization", `Bearer\r\n ${fixtures.ownKey}`]] },
      { note: "space before the colon", method: "GET", target: "/v1/contacts", headers: [["Authorization ", `Bearer ${fixtures.ownKey}`]] },
      { note: "empty header name", method: "GET", target: "/v1/contacts", headers: [auth, ["", "x"]] },
      {
        note: "Expect: 100-continue",
        method: "POST",
        target: "/v1/contacts",
        headers: [auth, json, ["Expect", "100-continue"]],
        body: '{"email":"expect@example.com"}'
      },
      { note: "unknown Expect", method: "POST", target: "/v1/contacts", headers: [auth, json, ["Expect", "teapot"]], body: "{}" }
    ),
    // Oversized request heads: a long target, many headers, one long header.
    fc.tuple(fc.integer({ min: 9_000, max: 70_000 }), fc.constantFrom("target", "header", "many headers", "query")).map(
      ([size, where]): WirePlan => ({
        note: `oversized ${where} (${size})`,
        method: "GET",
        target:
          where === "target"
            ? `/v1/contacts/${"a".repeat(size)}`
            : where === "query"
              ? `/v1/contacts?search=${"a".repeat(size)}`
              : "/v1/contacts",
        headers:
          where === "header"
            ? [auth, ["X-Big", "b".repeat(size)]]
            : where === "many headers"
              ? [auth, ...Array.from({ length: Math.floor(size / 20) }, (_, i) => [`X-H${i}`, "v"] as const)]
              : [auth]
      })
    )
  )
}

export const encodeWire = (plan: WirePlan): RawRequest => ({
  method: plan.method,
  target: typeof plan.target === "string" ? Buffer.from(plan.target, "latin1") : Buffer.from(plan.target),
  headers: plan.headers.map(
    ([name, value]) =>
      [name, value === null ? null : typeof value === "string" ? Buffer.from(value, "latin1") : Buffer.from(value)] as const
  ),
  body: plan.body === undefined ? undefined : Buffer.from(plan.body, "utf8"),
  contentLength: plan.contentLength,
  version: plan.version
})

/** A plan as bytes: headers in a fixed order, Content-Length from the body. */
export const encodePlan = (plan: Plan): RawRequest => {
  const { authorization, contentType, extra, idempotencyKey, ifMatch, requestId } = plan.headers
  const headers: Array<readonly [string, string]> = []
  if (authorization !== null) headers.push(["Authorization", authorization])
  const body = bodyBytes(plan.body)
  if (contentType !== null && body !== undefined) headers.push(["Content-Type", contentType])
  if (ifMatch !== null) headers.push(["If-Match", ifMatch])
  if (idempotencyKey !== null) headers.push(["Idempotency-Key", idempotencyKey])
  if (requestId !== null) headers.push(["X-Request-Id", requestId])
  headers.push(...extra)
  return { method: plan.method, target: plan.target, headers, body }
}
