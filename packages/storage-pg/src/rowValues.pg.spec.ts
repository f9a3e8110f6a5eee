import type { JsonObject } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { testDatabase } from "../../../test/support/pg.js"
import * as PgStorage from "./PgStorage.js"

// Keys as a client writes them, and as jsonb keeps them: shorter keys first, then by bytes ("é" is
// two bytes, so after "bb"), at every depth. node-postgres (the Effect 3 driver) read jsonb this
// way, and so must @effect/sql-pg 4: the adapter hands documents on as it reads them.
const written: JsonObject = { zeta: 1, a: 2, bb: 3, nested: { y: 1, x: 2 }, é: 4, z: 5 }
const jsonbOrder = ["a", "z", "bb", "é", "zeta", "nested"]
const keysOf = (value: unknown): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.entries(value).map(([key, inner]) => [key, keysOf(inner)])
    : null
const expectedKeys = keysOf(Object.fromEntries(jsonbOrder.map((key) => [key, key === "nested" ? { x: 0, y: 0 } : 0])))

describe("PgStorage reads values as the port states them", () => {
  it.live("jsonb in jsonb's key order, sequences as numbers, recorded times as ISO strings", () =>
    Effect.gen(function* () {
      const storage = yield* PgStorage.make(yield* testDatabase)
      const ws = "ws_values"
      const {
        events: [appended]
      } = yield* storage.commit({
        streams: [
          {
            streamId: "con_values",
            expectedVersion: 0,
            events: [
              { type: "contact.created", data: written, metadata: { workspaceId: ws, eventId: "evt_values", requestId: null, actor: null } }
            ]
          }
        ],
        documents: [
          {
            _tag: "Upsert",
            collection: "contact",
            workspaceId: ws,
            id: "con_values",
            version: 1,
            deletedAt: null,
            uniqueKey: null,
            searchWords: [],
            data: written
          }
        ]
      })

      const document = yield* storage.getDocument("contact", ws, "con_values")
      const [listed] = yield* storage.queryDocuments("contact", ws, {
        where: { _tag: "True" },
        scope: "live",
        sort: { field: { name: "a", type: "number" }, direction: "asc" },
        after: null,
        limit: 10
      })
      const [streamed] = yield* storage.readStream("con_values")
      const [logged] = yield* storage.readLog({ after: 0, limit: 10 })
      for (const data of [document?.data, listed?.data, streamed?.data, logged?.data]) {
        expect(data).toEqual(written)
        expect(keysOf(data)).toEqual(expectedKeys)
      }
      expect(keysOf(logged?.metadata)).toEqual(keysOf({ actor: 0, eventId: 0, requestId: 0, workspaceId: 0 }))

      for (const event of [streamed, logged]) {
        expect(typeof event?.sequence).toBe("number")
        expect(event?.sequence).toBe(appended?.sequence)
        expect(event?.recordedAt).toBe(appended?.recordedAt)
        expect(event?.recordedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      }
    }).pipe(Effect.scoped)
  )
})
