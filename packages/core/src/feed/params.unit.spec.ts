import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { FEED_EVENT_TYPES, parseFeedTypes } from "./eventTypes.js"
import { parseFeedParams } from "./params.js"

const refusal = (result: Result.Result<unknown, { readonly details: ReadonlyArray<unknown> }>) =>
  Result.isFailure(result) ? result.failure.details : null

describe("the feed's parameters", () => {
  it("default to every type, 100 events, no wait, from the start", () => {
    expect(parseFeedParams({})).toEqual(Result.succeed({ after: null, types: FEED_EVENT_TYPES, limit: 100, waitMillis: 0 }))
  })

  it("take exact types and prefixes, in the feed's order, each once", () => {
    expect(parseFeedTypes("deal.stage_changed,contact.*,contact.created")).toEqual(
      Result.succeed([
        "contact.created",
        "contact.updated",
        "contact.deleted",
        "contact.restored",
        "deal.stage_changed",
        "contact.erased",
        "contact.merged",
        "contact.unmerged",
        "contact.purged"
      ])
    )
    expect(parseFeedTypes(" deal.purged ")).toEqual(Result.succeed(["deal.purged"]))
  })

  it("refuse a type or prefix that keeps nothing, naming it", () => {
    for (const raw of ["contact.archived", "webhook.test", "*", "contact", "contact.", "lead.*", "contact.*,"]) {
      expect(refusal(parseFeedTypes(raw)), raw).toEqual([
        { path: "types", message: expect.stringContaining("is not an event type of the feed") }
      ])
    }
  })

  it("hold limit to 1–1000 and wait to 0–30 whole seconds, never clamped", () => {
    expect(Result.map(parseFeedParams({ limit: "1000", wait: "30" }), (p) => [p.limit, p.waitMillis])).toEqual(
      Result.succeed([1000, 30_000])
    )
    for (const limit of ["0", "1001", "-1", "1.5", "", "1e2", " 5"]) {
      expect(refusal(parseFeedParams({ limit })), limit).toEqual([{ path: "limit", message: "must be an integer from 1 to 1000" }])
    }
    for (const wait of ["31", "-1", "0.5", "", "30s"]) {
      expect(refusal(parseFeedParams({ wait })), wait).toEqual([{ path: "wait", message: "must be an integer from 0 to 30" }])
    }
  })

  it("refuse parameters they do not know", () => {
    expect(refusal(parseFeedParams({ cursor: "x", since: "y" }))).toEqual([
      { path: "cursor", message: "is not a known parameter" },
      { path: "since", message: "is not a known parameter" }
    ])
  })
})
