import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { WEBHOOK_EVENT_TYPES } from "./eventTypes.js"
import { parseRecoverBody, parseWebhookCreate, parseWebhookPatch } from "./input.js"

const secure = { allowInsecure: false }
const insecure = { allowInsecure: true }

const details = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string; message: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => [d.path, d.message]) : []
const paths = (result: Result.Result<unknown, { details: ReadonlyArray<{ path: string }> }>) =>
  Result.isFailure(result) ? result.failure.details.map((d) => d.path) : []

const create = (fields: Record<string, unknown>, options = secure) =>
  parseWebhookCreate({ url: "https://hooks.example.com/in", events: ["deal.created"], ...fields }, options)

describe("parseWebhookCreate", () => {
  it("accepts url, events and a secret", () => {
    expect(create({ secret: "s3cr3t-value" })).toEqual(
      Result.succeed({ url: "https://hooks.example.com/in", events: ["deal.created"], secret: "s3cr3t-value" })
    )
  })

  it("takes an absent or null secret as no signing", () => {
    expect(create({})).toEqual(Result.succeed({ url: "https://hooks.example.com/in", events: ["deal.created"], secret: null }))
    expect(Result.map(create({ secret: null }), (w) => w.secret)).toEqual(Result.succeed(null))
  })

  it("knows the twenty-two event names and the wildcard", () => {
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(22)
    expect(Result.isSuccess(create({ events: [...WEBHOOK_EVENT_TYPES] }))).toBe(true)
    expect(Result.map(create({ events: ["*"] }), (w) => w.events)).toEqual(Result.succeed(["*"]))
  })

  it("drops duplicate events, keeping the first order", () => {
    expect(Result.map(create({ events: ["deal.updated", "deal.created", "deal.updated"] }), (w) => w.events)).toEqual(
      Result.succeed(["deal.updated", "deal.created"])
    )
    expect(Result.map(create({ events: ["*", "*"] }), (w) => w.events)).toEqual(Result.succeed(["*"]))
  })

  it("points at each unknown event name", () => {
    expect(details(create({ events: ["deal.created", "deal.won", 3] }))).toEqual([
      ["events[1]", "is not a known event"],
      ["events[2]", "must be a string"]
    ])
  })

  it("refuses an empty list, a non-list and a wildcard mixed with names", () => {
    expect(details(create({ events: [] }))).toEqual([["events", "must not be empty"]])
    expect(paths(create({ events: "deal.created" }))).toEqual(["events"])
    expect(details(create({ events: ["deal.created", "*"] }))).toEqual([["events[1]", `"*" cannot be combined with event names`]])
  })

  it("requires url and events", () => {
    expect(details(parseWebhookCreate({}, secure))).toEqual([
      ["url", "is required"],
      ["events", "is required"]
    ])
  })

  it("refuses a body that is not an object with path ''", () => {
    for (const body of [null, [], "x", 3]) expect(paths(parseWebhookCreate(body, secure))).toEqual([""])
  })

  it("reports every unknown and read-only key, never inherited names", () => {
    expect(details(create({ urll: "x", status: "failed", has_secret: true, constructor: 1 }))).toEqual([
      ["urll", "is not a known field"],
      ["status", "is read-only"],
      ["has_secret", "is read-only"],
      ["constructor", "is not a known field"]
    ])
  })

  it.each([
    [8, true],
    [512, true],
    [7, false],
    [513, false]
  ])("takes a secret of %i characters: %s", (length, ok) => {
    expect(Result.isSuccess(create({ secret: "k".repeat(length) }))).toBe(ok)
  })

  it("takes a whsec_ secret only when base64 of 24 to 64 bytes follows", () => {
    const of = (bytes: number) => `whsec_${Buffer.alloc(bytes, 9).toString("base64")}`
    expect(Result.isSuccess(create({ secret: of(24) }))).toBe(true)
    expect(Result.isSuccess(create({ secret: of(64) }))).toBe(true)
    for (const bad of [of(23), of(65), "whsec_test_0123456789", `${of(32)}x`]) expect(paths(create({ secret: bad }))).toEqual(["secret"])
    // Only the prefix makes a secret standard; anything else is taken as characters.
    expect(Result.isSuccess(create({ secret: "WHSEC_test_0123456789" }))).toBe(true)
  })

  it("refuses a secret with spaces or non-ASCII characters, or not a string", () => {
    expect(paths(create({ secret: "has a space" }))).toEqual(["secret"])
    expect(paths(create({ secret: "geheimnis\u00e9" }))).toEqual(["secret"])
    expect(paths(create({ secret: 12345678 }))).toEqual(["secret"])
  })
})

describe("webhook url", () => {
  it.each([
    ["https://hooks.example.com/in?x=1", "https://hooks.example.com/in?x=1"],
    ["  https://hooks.example.com  ", "https://hooks.example.com"],
    ["https://8.8.8.8:8443/hook", "https://8.8.8.8:8443/hook"],
    ["https://[2606:4700:4700::1111]/", "https://[2606:4700:4700::1111]/"],
    // Host names are resolved and checked by the engine.
    ["https://localhost/hook", "https://localhost/hook"]
  ])("accepts %s", (url, stored) => {
    expect(Result.map(create({ url }), (w) => w.url)).toEqual(Result.succeed(stored))
  })

  it.each([
    ["http://hooks.example.com", "must be an https URL"],
    ["ftp://hooks.example.com", "must be an https URL"],
    ["hooks.example.com/in", "must be an absolute URL"],
    ["/in", "must be an absolute URL"],
    ["https://", "must be an absolute URL"],
    ["https://user:pw@hooks.example.com", "must not contain credentials"],
    ["https://user@hooks.example.com", "must not contain credentials"],
    ["https://hooks.example.com/in#frag", "must not contain a fragment"],
    ["https://hooks.example.com/in#", "must not contain a fragment"],
    ["https://127.0.0.1/", "must not point to a loopback address"],
    // The URL parser turns these spellings into 127.0.0.1 before the check sees them.
    ["https://2130706433/", "must not point to a loopback address"],
    ["https://0x7f.1/", "must not point to a loopback address"],
    ["https://127.0.0.1./", "must not point to a loopback address"],
    ["https://[::1]/", "must not point to a loopback address"],
    ["https://[::ffff:127.0.0.1]/", "must not point to a loopback address"],
    ["https://10.0.0.5/", "must not point to a private address"],
    ["https://169.254.169.254/latest/meta-data", "must not point to a link-local address"],
    ["https://[fe80::1]/", "must not point to a link-local address"],
    ["https://0.0.0.0/", "must not point to an unspecified address"],
    ["https://224.0.0.1/", "must not point to a multicast address"],
    ["https://240.0.0.1/", "must not point to a reserved address"],
    [`https://example.com/${"a".repeat(2030)}`, "must be at most 2048 characters"],
    [42, "must be a string"]
  ])("refuses %s", (url, message) => {
    expect(details(create({ url }))).toEqual([["url", message]])
  })

  it("accepts http and non-public literals only when insecure targets are allowed", () => {
    expect(Result.isSuccess(create({ url: "http://127.0.0.1:8080/hook" }, insecure))).toBe(true)
    expect(Result.isSuccess(create({ url: "https://[::1]/" }, insecure))).toBe(true)
    expect(details(create({ url: "ftp://127.0.0.1/" }, insecure))).toEqual([["url", "must be an http or https URL"]])
    expect(paths(create({ url: "http://user@127.0.0.1/" }, insecure))).toEqual(["url"])
  })

  it("accepts 2048 characters", () => {
    const url = `https://example.com/${"a".repeat(2048 - "https://example.com/".length)}`
    expect(Result.isSuccess(create({ url }))).toBe(true)
  })
})

describe("parseWebhookPatch", () => {
  it("keeps only the given keys", () => {
    expect(parseWebhookPatch({ secret: null, events: ["*"] }, secure)).toEqual(Result.succeed({ secret: null, events: ["*"] }))
    expect(parseWebhookPatch({}, secure)).toEqual(Result.succeed({}))
  })

  it("takes status only as active", () => {
    expect(parseWebhookPatch({ status: "active" }, secure)).toEqual(Result.succeed({ status: "active" }))
    expect(details(parseWebhookPatch({ status: "failed" }, secure))).toEqual([["status", `can only be set to "active"`]])
  })

  it("checks each given field as on creation and reports all of them", () => {
    expect(paths(parseWebhookPatch({ url: "http://x.example", events: [], secret: "short", id: "wh_2", nope: 1 }, secure))).toEqual([
      "url",
      "events",
      "secret",
      "id",
      "nope"
    ])
  })

  it("takes an overlap of 0 to 604800 whole seconds, only beside a new secret", () => {
    expect(parseWebhookPatch({ secret: "next-secret-1", previous_secret_expires_in: 604800 }, secure)).toEqual(
      Result.succeed({ secret: "next-secret-1", previous_secret_expires_in: 604800 })
    )
    for (const bad of [-1, 604801, 1.5, "60", null]) {
      expect(paths(parseWebhookPatch({ secret: "next-secret-1", previous_secret_expires_in: bad }, secure))).toEqual([
        "previous_secret_expires_in"
      ])
    }
    expect(details(parseWebhookPatch({ previous_secret_expires_in: 60 }, secure))).toEqual([
      ["previous_secret_expires_in", "needs a new secret in the same request"]
    ])
    expect(paths(parseWebhookPatch({ secret: null, previous_secret_expires_in: 60 }, secure))).toEqual(["previous_secret_expires_in"])
  })

  it("takes recover_since as a timestamp, kept in canonical UTC form", () => {
    expect(parseWebhookPatch({ status: "active", recover_since: "2026-01-01T01:00:00+01:00" }, secure)).toEqual(
      Result.succeed({ status: "active", recover_since: "2026-01-01T00:00:00.000Z" })
    )
    for (const bad of ["yesterday", "2026-01-01", 1767225600, null]) {
      expect(paths(parseWebhookPatch({ recover_since: bad }, secure))).toEqual(["recover_since"])
    }
  })

  it("accepts an insecure url when allowed", () => {
    expect(parseWebhookPatch({ url: "http://10.0.0.1/" }, insecure)).toEqual(Result.succeed({ url: "http://10.0.0.1/" }))
  })
})

describe("parseRecoverBody", () => {
  it("needs since, a timestamp, and nothing else", () => {
    expect(parseRecoverBody({ since: "2026-01-01T00:00:00Z" }, secure)).toEqual(Result.succeed({ since: "2026-01-01T00:00:00.000Z" }))
    expect(details(parseRecoverBody({}, secure))).toEqual([["since", "is required"]])
    expect(paths(parseRecoverBody({ since: "soon", until: "x" }, secure))).toEqual(["since", "until"])
    expect(paths(parseRecoverBody([], secure))).toEqual([""])
  })
})
