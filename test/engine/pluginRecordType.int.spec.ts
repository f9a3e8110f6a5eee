import { describe, expect, it } from "@effect/vitest"
import { EngineLive, IdsLive, RecordTypes, Engine, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { note } from "../plugins/note/note.js"
import { acceptingTargets, ctxOf } from "../support/engine.js"

const ws = ctxOf("acme")

/** An engine and storage given the note plug-in, as an embedder gives one. */
const withNotes = <A, E>(body: Effect.Effect<A, E, Engine | Storage>) =>
  body.pipe(
    Effect.provide(
      EngineLive.pipe(
        Layer.provideMerge(MemoryStorage.layer),
        Layer.provide(IdsLive),
        Layer.provide(acceptingTargets),
        Layer.provide(Layer.succeed(RecordTypes, [note]))
      ),
      { local: true }
    )
  )

const notes = Effect.map(Engine, (engine) => engine.records.get("note")!)

describe("a plug-in record type on memory storage", () => {
  it.effect("is created, read, listed, patched, deleted, restored and purged like a company", () =>
    withNotes(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
        const engine = yield* Engine
        const service = yield* notes
        const created = yield* service.create(ws, { title: "  First  ", body: "hello world", slug: "first" })
        const id = created.data["id"] as string
        expect(id).toMatch(/^note_/)
        expect(created).toEqual({
          data: {
            id,
            title: "First",
            body: "hello world",
            slug: "first",
            created_at: "2026-01-01T00:00:00.000Z",
            updated_at: "2026-01-01T00:00:00.000Z"
          },
          version: 1
        })
        expect(yield* service.get(ws, id)).toEqual(created)
        const refused = yield* Effect.flip(service.create(ws, { body: "no title", colour: "red" }))
        expect(refused._tag).toBe("ValidationError")
        expect(refused._tag === "ValidationError" ? refused.details.map((d) => d.path) : []).toEqual(["title", "colour"])
        const taken = yield* Effect.flip(service.create(ws, { title: "Again", slug: "FIRST" }))
        expect(taken._tag).toBe("Conflict")

        yield* TestClock.adjust("1 second")
        const patched = yield* service.update(ws, id, { body: "changed" }, 1)
        expect(patched.version).toBe(2)
        expect(patched.data["body"]).toBe("changed")
        expect((yield* Effect.flip(service.update(ws, id, { body: "stale" }, 1)))._tag).toBe("PreconditionFailed")

        yield* service.create(ws, { title: "Second", body: "other words" })
        const searched = yield* service.list(ws, { search: "chang" })
        expect(searched.data.map((n) => n["id"])).toEqual([id])
        const sorted = yield* service.list(ws, { sort: "-title" })
        expect(sorted.data.map((n) => n["title"])).toEqual(["Second", "First"])
        expect((yield* Effect.flip(service.list(ws, { colour: "red" })))._tag).toBe("ValidationError")

        const history = yield* service.history(ws, id, {})
        expect(history.data.map((e) => e["type"])).toEqual(["note.created", "note.updated"])

        yield* service.delete(ws, id, null)
        expect((yield* Effect.flip(service.get(ws, id)))._tag).toBe("NotFound")
        const trash = yield* engine.trash.list(ws, { type: "note" })
        expect(trash.data.map((t) => [t["type"], t["id"], (t["record"] as { title: string }).title])).toEqual([["note", id, "First"]])
        // The slug is free while the note is in the trash, and its restore is refused while another holds it.
        const other = yield* service.create(ws, { title: "Holder", slug: "first" })
        expect((yield* Effect.flip(service.restore(ws, id)))._tag).toBe("Conflict")
        yield* service.delete(ws, other.data["id"] as string, null)
        expect((yield* service.restore(ws, id)).data["slug"]).toBe("first")

        yield* service.delete(ws, id, null)
        yield* TestClock.adjust("31 days")
        expect(yield* engine.purgeExpired).toBe(2)
        expect((yield* Effect.flip(service.restore(ws, id)))._tag).toBe("NotFound")
        const stream = yield* (yield* Storage).readStream(id)
        expect(stream.map((e) => e.type)).toEqual([
          "note.created",
          "note.updated",
          "note.deleted",
          "note.restored",
          "note.deleted",
          "note.purged"
        ])
        expect(JSON.stringify(stream)).not.toContain("changed")
      })
    )
  )

  it.effect("batches creates, updates and upserts on its unique field", () =>
    withNotes(
      Effect.gen(function* () {
        const service = yield* notes
        const first = yield* service.batch(ws, {
          operations: [
            { op: "upsert", match: { slug: "a" }, data: { title: "A" } },
            { op: "create", data: { title: "B" } }
          ]
        })
        expect(first.outcomes.map((o) => (o._tag === "Applied" ? o.created : o._tag))).toEqual([true, true])
        const again = yield* service.batch(ws, { operations: [{ op: "upsert", match: { slug: " A " }, data: { title: "A2" } }] })
        const outcome = again.outcomes[0]!
        expect(outcome._tag === "Applied" ? [outcome.created, outcome.record.data["title"], outcome.record.data["slug"]] : outcome).toEqual(
          [false, "A2", "a"]
        )
      })
    )
  )

  it.effect("announces its events to webhooks and the change feed, and only to subscribers of them", () =>
    withNotes(
      Effect.gen(function* () {
        const engine = yield* Engine
        const service = yield* notes
        const hook = yield* engine.webhooks.create(ws, { url: "http://127.0.0.1:9/hook", events: ["note.created", "note.deleted"] })
        expect((yield* Effect.flip(engine.webhooks.create(ws, { url: "http://127.0.0.1:9/x", events: ["memo.created"] })))._tag).toBe(
          "ValidationError"
        )
        const created = yield* service.create(ws, { title: "Told" })
        const id = created.data["id"] as string
        yield* service.update(ws, id, { title: "Told again" }, null)
        yield* service.delete(ws, id, null)
        const deliveries = yield* engine.webhooks.deliveries(ws, hook.data["id"] as string, {})
        expect(deliveries.data.map((d) => d["event_type"]).sort()).toEqual(["note.created", "note.deleted"])

        const feed = yield* engine.events.list(ws, { types: "note.*" })
        expect(feed.data.map((e) => e["type"])).toEqual(["note.created", "note.updated", "note.deleted"])
        expect(feed.data[0]!["data"]).toEqual({ note: created.data })
        expect(feed.data[1]!["data"]).toEqual({
          note: { ...created.data, title: "Told again", updated_at: created.data["updated_at"] },
          changed_fields: ["title"]
        })
        expect(feed.data[2]!["data"]).toEqual({ id })
        // A process given no plug-in knows no note events.
        expect((yield* Effect.flip(engine.events.list(ctxOf("other"), { types: "contact.*,memo.*" })))._tag).toBe("ValidationError")
      })
    )
  )
})
