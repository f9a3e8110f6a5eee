import { Storage } from "@dealstream/core"
import { event, fresh, upsert } from "../../packages/core/src/testing/storageFixtures.js"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { citusStorageLayer } from "../support/citusDatabase.js"

// Issue 31: where a commit runs on Citus (packages/storage-pg/src/citusCommits.ts).

/** Sequences Citus hands out on a worker start at its group id shifted left by 48 bits. */
const WORKER_SEQUENCES = 2 ** 48

describe("commits on Citus", () => {
  it.layer(citusStorageLayer, { timeout: 60_000 })((it) => {
    it.effect("run on the worker holding the workspace: the worker's own sequence range", () =>
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = fresh("ws")
        const { events } = yield* storage.commit({
          streams: [{ streamId: fresh("con"), expectedVersion: 0, events: [event(ws, "contact.created")] }],
          documents: []
        })
        expect(events[0]!.sequence).toBeGreaterThanOrEqual(WORKER_SEQUENCES)
      })
    )

    it.effect("may write a document of another workspace beside its log's events (an API key's entry)", () =>
      Effect.gen(function* () {
        const storage = yield* Storage
        const [ws, system] = [fresh("ws"), fresh("ws")]
        const [stream, key] = [fresh("key"), fresh("sha")]
        yield* storage.commit({
          streams: [{ streamId: stream, expectedVersion: 0, events: [event(ws, "api_key.created")] }],
          documents: [upsert(system, key, { name: "k" }, { collection: "api_key" })]
        })
        expect((yield* storage.getDocument("api_key", system, key))?.data).toEqual({ id: key, name: "k" })
        expect((yield* storage.readStream(stream)).map((e) => e.type)).toEqual(["api_key.created"])
      })
    )

    it.effect("refuses a commit that appends to two workspaces' logs, and stores nothing of it", () =>
      Effect.gen(function* () {
        const storage = yield* Storage
        const [ws, other] = [fresh("ws"), fresh("ws")]
        const [a, b] = [fresh("con"), fresh("con")]
        const exit = yield* Effect.exit(
          storage.commit({
            streams: [
              { streamId: a, expectedVersion: 0, events: [event(ws, "contact.created")] },
              { streamId: b, expectedVersion: 0, events: [event(other, "contact.created")] }
            ],
            documents: []
          })
        )
        expect(Exit.isFailure(exit)).toBe(true)
        expect(String(Exit.isFailure(exit) ? exit.cause : "")).toMatch(/one workspace's log/)
        expect(yield* storage.readStream(a)).toEqual([])
        expect(yield* storage.readStream(b)).toEqual([])
      })
    )
  })
})
