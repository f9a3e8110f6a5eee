import {
  Engine,
  EngineLive,
  IdsLive,
  type InlineEvent,
  type InlineProjection,
  InlineProjections,
  inlineProjection,
  inlineStore,
  Storage
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Layer } from "effect"
import { ctxOf, noWebhookSending } from "../support/engine.js"
import { contactEmails } from "./inlineProjections.js"

const ctx = ctxOf("ws_inline")

/** A new engine on memory storage of its own, with these inline projections. */
const withProjections = <A, E>(projections: ReadonlyArray<InlineProjection>, body: Effect.Effect<A, E, Engine | Storage>) =>
  body.pipe(
    Effect.provide(
      EngineLive.pipe(
        Layer.provideMerge(MemoryStorage.layer),
        Layer.provide(IdsLive),
        Layer.provide(noWebhookSending),
        Layer.provide(Layer.succeed(InlineProjections, projections))
      ),
      { local: true }
    )
  )

/** Every event the storage holds, and every contact document. */
const stored = Effect.gen(function* () {
  const storage = yield* Storage
  const events = yield* storage.readLog({ after: 0, limit: 1_000 })
  const contacts = yield* (yield* Engine).contacts.list(ctx, {})
  return { contactEvents: events.filter((event) => event.type.startsWith("contact.")).length, contacts: contacts.data.length }
})

describe("inline projections on memory storage", () => {
  it.effect("keep the embedder's store with every commit of the events they handle", () => {
    const store = inlineStore<ReadonlyMap<string, string>>(new Map())
    const calls: Array<ReadonlyArray<InlineEvent>> = []
    return withProjections(
      [contactEmails(store, (events) => calls.push(events))],
      Effect.gen(function* () {
        const engine = yield* Engine
        const ada = yield* engine.contacts.create(ctx, { email: "ada@x.io" })
        const bob = yield* engine.contacts.create(ctx, { email: "bob@x.io" })
        yield* engine.contacts.update(ctx, String(bob.data["id"]), { email: "bob@y.io" }, null)
        yield* engine.pipelines.list(ctx)
        expect([...store.current()]).toEqual([
          [ada.data["id"], "ada@x.io"],
          [bob.data["id"], "bob@y.io"]
        ])
        // One call per commit, with its handled events as the change feed shows them; none for commits without any.
        expect(calls.map((events) => events.map((event) => [event.type, event.stream_version]))).toEqual([
          [["contact.created", 1]],
          [["contact.created", 1]],
          [["contact.updated", 2]]
        ])
        const [created] = calls[0]!
        expect(created).toMatchObject({ stream_id: ada.data["id"], workspace_id: ctx.workspaceId, data: { contact: ada.data } })
        expect(created?.id).toMatch(/^evt_/)
      })
    )
  })

  for (const [what, email] of [
    ["a projection that throws", "throw@x.io"],
    ["a store update that throws", "refuse@x.io"]
  ] as const) {
    it.effect(`${what} fails the command with ProjectionFailed and stores nothing`, () => {
      const store = inlineStore<ReadonlyMap<string, string>>(new Map([["con_before", "before@x.io"]]))
      return withProjections(
        [contactEmails(store)],
        Effect.gen(function* () {
          const engine = yield* Engine
          const failed = yield* Effect.flip(engine.contacts.create(ctx, { email }))
          expect(failed._tag).toBe("ProjectionFailed")
          expect(failed._tag === "ProjectionFailed" ? [failed.projection, failed.message.includes(email)] : failed).toEqual([
            "contact_emails",
            true
          ])
          expect(yield* stored).toEqual({ contactEvents: 0, contacts: 0 })
          expect([...store.current()]).toEqual([["con_before", "before@x.io"]])
        })
      )
    })
  }

  it.effect("see an atomic batch's events in one call, and fail it whole", () => {
    const store = inlineStore<ReadonlyMap<string, string>>(new Map())
    const calls: Array<number> = []
    return withProjections(
      [contactEmails(store, (events) => calls.push(events.length))],
      Effect.gen(function* () {
        const engine = yield* Engine
        const creates = (emails: ReadonlyArray<string>) => emails.map((email) => ({ op: "create", data: { email } }))
        const done = yield* engine.contacts.batch(ctx, { atomic: true, operations: creates(["a@x.io", "b@x.io", "c@x.io"]) })
        expect(done.outcomes.map((outcome) => outcome._tag)).toEqual(["Applied", "Applied", "Applied"])
        expect(calls).toEqual([3])
        expect([...store.current().values()].sort()).toEqual(["a@x.io", "b@x.io", "c@x.io"])

        const failed = yield* Effect.flip(engine.contacts.batch(ctx, { atomic: true, operations: creates(["d@x.io", "throw@x.io"]) }))
        expect(failed._tag).toBe("ProjectionFailed")
        expect(yield* stored).toEqual({ contactEvents: 3, contacts: 3 })
        expect(store.current().size).toBe(3)
      })
    )
  })

  it.effect("fail only the command whose projection fails among commands running at once", () => {
    const store = inlineStore<ReadonlyMap<string, string>>(new Map())
    return withProjections(
      [contactEmails(store)],
      Effect.gen(function* () {
        const engine = yield* Engine
        const emails = ["p1@x.io", "p2@x.io", "refuse@x.io", "p3@x.io", "throw@x.io", "p4@x.io"]
        const results = yield* Effect.forEach(emails, (email) => Effect.result(engine.contacts.create(ctx, { email })), {
          concurrency: "unbounded"
        })
        expect(results.map((result) => (result._tag === "Success" ? "stored" : result.failure._tag))).toEqual([
          "stored",
          "stored",
          "ProjectionFailed",
          "stored",
          "ProjectionFailed",
          "stored"
        ])
        expect([...store.current().values()].sort()).toEqual(["p1@x.io", "p2@x.io", "p3@x.io", "p4@x.io"])
        expect(yield* stored).toEqual({ contactEvents: 4, contacts: 4 })
      })
    )
  })

  it.effect("refuse, when the engine is built, a projection without a memory target, naming it", () =>
    Effect.gen(function* () {
      const built = yield* Effect.exit(
        withProjections(
          [inlineProjection({ name: "sql_only", project: (events) => events, postgres: () => ({ sql: "SELECT 1" }) })],
          Effect.void
        )
      )
      expect(built._tag === "Failure" ? Cause.squash(built.cause) : built).toEqual(
        new Error("inline projection sql_only has no memory target, and the storage is memory")
      )
    })
  )

  it.effect("refuse, when the engine is built, any projection on a storage that runs none (Citus)", () =>
    Effect.gen(function* () {
      const projection = inlineProjection({ name: "emails", project: (events) => events, postgres: () => ({ sql: "SELECT 1" }) })
      const built = yield* Effect.exit(
        Effect.void.pipe(
          Effect.provide(
            EngineLive.pipe(
              Layer.provideMerge(
                Layer.effect(
                  Storage,
                  Effect.map(MemoryStorage.make, (storage) => ({ ...storage, inlineTarget: null }))
                )
              ),
              Layer.provide(MemoryStorage.layer),
              Layer.provide(IdsLive),
              Layer.provide(noWebhookSending),
              Layer.provide(Layer.succeed(InlineProjections, [projection]))
            ),
            { local: true }
          )
        )
      )
      expect(built._tag === "Failure" ? String(Cause.squash(built.cause)) : built).toContain(
        "inline projections do not run on this storage (PostgreSQL on Citus): register emails"
      )
    })
  )
})
