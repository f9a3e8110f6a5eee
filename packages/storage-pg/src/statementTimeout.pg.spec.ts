import type { Commit } from "@dealstream/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { testDatabase } from "../../../test/support/pg.js"
import { silencingProxy } from "../../../test/storage/silencingProxy.js"
import * as PgStorage from "./PgStorage.js"

const ws = "ws_silent"

const create = (id: string): Commit => ({
  streams: [
    {
      streamId: id,
      expectedVersion: 0,
      events: [{ type: "x.created", data: {}, metadata: { workspaceId: ws, eventId: `evt_${id}`, requestId: null, actor: null } }]
    }
  ],
  documents: []
})

// The proxy passes connections made after `silence`, so a statement answered after one that timed
// out shows that the silent connection was closed and not lent again: with one connection in the
// pool, that statement would otherwise wait on it in turn.
describe("PgStorage on a network gone silent", () => {
  it.live(
    "a statement left unanswered fails with StorageUnavailable after statementTimeout, and its connection is not reused",
    () =>
      Effect.gen(function* () {
        const url = yield* testDatabase
        const proxy = yield* silencingProxy(url)
        const storage = yield* PgStorage.make({ url: proxy.url, maxConnections: 1, statementTimeout: "1 second" })
        yield* storage.commit(create("con_before"))

        proxy.silence()
        const read = yield* Effect.flip(storage.readStream("con_before"))
        expect({ _tag: read._tag, message: read.message }).toEqual({
          _tag: "StorageUnavailable",
          message: "PostgreSQL is unavailable: no answer within 1s"
        })
        expect((yield* storage.readStream("con_before")).map((e) => e.type)).toEqual(["x.created"])

        // a commit too, whose statement a commit lane sends
        proxy.silence()
        const commit = yield* Effect.flip(storage.commit(create("con_during")))
        expect(commit._tag).toBe("StorageUnavailable")
        yield* storage.commit(create("con_after"))
        expect((yield* storage.readLog({ after: 0, limit: 10 })).map((e) => e.streamId)).toContain("con_after")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
