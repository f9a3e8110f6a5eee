import { Result } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { decodeFeedCursor, encodeFeedCursor } from "./cursor.js"

const position = fc.record({
  transaction: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  sequence: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })
})

describe("feed cursors", () => {
  it("give back the position they were made with, in the workspace they were made for", () => {
    fc.assert(
      fc.property(position, fc.string({ minLength: 1 }), (at, workspace) => {
        expect(decodeFeedCursor(encodeFeedCursor(workspace, at), workspace)).toEqual(Result.succeed(at))
      })
    )
  })

  it("are refused by another workspace's feed", () => {
    const cursor = encodeFeedCursor("ws_a", { transaction: "7", sequence: 3 })
    const refused = decodeFeedCursor(cursor, "ws_b")
    expect(Result.isFailure(refused) && refused.failure.details).toEqual([
      { path: "after", message: "is a cursor of another workspace's feed" }
    ])
  })

  it("are refused when edited, truncated or not ours", () => {
    const cursor = encodeFeedCursor("ws_a", { transaction: "123", sequence: 45 })
    const json = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string, number, string]
    const reencode = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url")
    for (const bad of [
      "",
      "abc",
      cursor.slice(0, -3),
      reencode([json[0], "124", json[2], json[3]]),
      reencode([json[0], json[1], 46, json[3]]),
      reencode([json[0], "-1", json[2], json[3]]),
      reencode([json[0], String(2n ** 64n), json[2], json[3]]),
      reencode([json[0], json[1], 1.5, json[3]]),
      reencode(json.slice(0, 3)),
      reencode({ transaction: "1" })
    ]) {
      const refused = decodeFeedCursor(bad, "ws_a")
      expect(Result.isFailure(refused) && refused.failure.details, bad).toEqual([{ path: "after", message: "is not a valid feed cursor" }])
    }
  })
})
