import {
  DeliveryQueue,
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
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { contactEmails, EMAILS_TABLE } from "../../../test/engine/inlineProjections.js"
import { ctxOf, noWebhookSending } from "../../../test/support/engine.js"
import { testDatabase } from "../../../test/support/pg.js"
import { makeCommitBatches } from "./commitBatches.js"
import { builtInTables } from "./documentTableMap.js"
import { migrate } from "./migrate.js"
import * as PgStorage from "./PgStorage.js"

const ctx = ctxOf("ws_inline")
const store = () => inlineStore<ReadonlyMap<string, string>>(new Map())

/**
 * An engine with these inline projections on a database of its own, with the embedder's table, and
 * one commit lane: commits that arrive while a batch is in flight go together in the next.
 */
const setUp = (projections: (sql: SqlClient) => ReadonlyArray<InlineProjection>) =>
  Effect.gen(function* () {
    const url = yield* testDatabase
    const sql = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 4 }).pipe(
      Effect.provide(Reactivity.layer)
    )
    yield* migrate(sql)
    yield* sql.unsafe(EMAILS_TABLE)
    const batches = yield* makeCommitBatches(sql, { lanes: 1, maxBatch: 64 })
    const listen = { url, connectTimeout: "5 seconds", heartbeat: "5 seconds" } as const
    const storage = PgStorage.fromClient(sql, batches.submit, listen, builtInTables)
    const context = yield* Layer.buildWithMemoMap(
      EngineLive.pipe(
        Layer.provideMerge(Layer.succeed(Storage, storage)),
        Layer.provide(Layer.succeed(DeliveryQueue, PgStorage.queueFromClient(sql, listen))),
        Layer.provide(IdsLive),
        Layer.provide(noWebhookSending),
        Layer.provide(Layer.succeed(InlineProjections, projections(sql)))
      ),
      Layer.makeMemoMapUnsafe(),
      yield* Scope.Scope
    )
    const rows = Effect.map(sql.unsafe<{ readonly email: string }>("SELECT email FROM ip_contact_emails ORDER BY email"), (found) =>
      found.map((row) => row.email)
    )
    const contactEvents = Effect.map(
      storage.readLog({ after: 0, limit: 1_000 }),
      (events) => events.filter((event) => event.type.startsWith("contact.")).length
    )
    const engine = Context.get(context, Engine)
    const contacts = Effect.map(engine.contacts.list(ctx, { limit: "100" }), (page) => page.data.length)
    return { engine, sql, batches, rows, stored: Effect.all({ contactEvents, contacts, rows }) }
  })

describe("inline projections on PostgreSQL", () => {
  it.effect("write the embedder's table in the commit of the events they handle", () =>
    Effect.gen(function* () {
      const calls: Array<ReadonlyArray<InlineEvent>> = []
      const { batches, engine, rows } = yield* setUp(() => [contactEmails(store(), (events) => calls.push(events))])
      yield* engine.pipelines.list(ctx)
      const before = batches.sent()
      yield* engine.contacts.create(ctx, { email: "ada@x.io" })
      // One statement for the commit and its projection's: still one round trip.
      expect(batches.sent()).toEqual({ statements: before.statements + 1, commits: before.commits + 1 })
      const bob = yield* engine.contacts.create(ctx, { email: "bob@x.io" })
      yield* engine.contacts.update(ctx, String(bob.data["id"]), { email: "bob@y.io" }, null)
      expect(yield* rows).toEqual(["ada@x.io", "bob@y.io"])
      expect(calls.map((events) => events.map((event) => event.type))).toEqual([
        ["contact.created"],
        ["contact.created"],
        ["contact.updated"]
      ])
    })
  )

  for (const [what, email, message] of [
    ["a projection that throws", "throw@x.io", "throw@x.io is not projected"],
    ["a statement PostgreSQL refuses", "refuse@x.io", 'violates check constraint "ip_contact_emails_email_check"']
  ] as const) {
    it.effect(`${what} fails the command with ProjectionFailed and stores nothing`, () =>
      Effect.gen(function* () {
        const { engine, stored } = yield* setUp(() => [contactEmails(store())])
        const failed = yield* Effect.flip(engine.contacts.create(ctx, { email }))
        expect(failed._tag === "ProjectionFailed" ? [failed.projection, failed.message.includes(message)] : failed).toEqual([
          "contact_emails",
          true
        ])
        expect(yield* stored).toEqual({ contactEvents: 0, contacts: 0, rows: [] })
      })
    )
  }

  it.effect("see an atomic batch's events in one call, written in its one commit", () =>
    Effect.gen(function* () {
      const calls: Array<number> = []
      const { engine, stored } = yield* setUp(() => [contactEmails(store(), (events) => calls.push(events.length))])
      const creates = (emails: ReadonlyArray<string>) => emails.map((email) => ({ op: "create", data: { email } }))
      const done = yield* engine.contacts.batch(ctx, { atomic: true, operations: creates(["a@x.io", "b@x.io", "c@x.io"]) })
      expect(done.outcomes.map((outcome) => outcome._tag)).toEqual(["Applied", "Applied", "Applied"])
      expect(calls).toEqual([3])
      const failed = yield* Effect.flip(engine.contacts.batch(ctx, { atomic: true, operations: creates(["d@x.io", "refuse@x.io"]) }))
      expect(failed._tag).toBe("ProjectionFailed")
      expect(yield* stored).toEqual({ contactEvents: 3, contacts: 3, rows: ["a@x.io", "b@x.io", "c@x.io"] })
    })
  )

  it.effect("fail only their own command in a group commit: the batch's other commits are stored", () =>
    Effect.gen(function* () {
      const { batches, engine, stored } = yield* setUp(() => [contactEmails(store())])
      // Warm the workspace's settings, so that the creates below each commit at once, together.
      yield* engine.pipelines.list(ctx)
      const before = batches.sent()
      const emails = Array.from({ length: 24 }, (_, i) =>
        i === 9 ? "refuse@x.io" : i === 17 ? "throw@x.io" : `p${String(i).padStart(2, "0")}@x.io`
      )
      const results = yield* Effect.forEach(emails, (email) => Effect.result(engine.contacts.create(ctx, { email })), {
        concurrency: "unbounded"
      })
      const after = batches.sent()
      // Grouped: fewer statements than commits, so the refused statement rode in a batch with others.
      expect(after.commits - before.commits).toBe(23)
      expect(after.statements - before.statements).toBeLessThan(23)
      expect(
        results.map((result, i) => (result._tag === "Success" ? "stored" : `${i}:${result.failure._tag}`)).filter((r) => r !== "stored")
      ).toEqual(["9:ProjectionFailed", "17:ProjectionFailed"])
      const kept = emails.filter((email) => email.startsWith("p"))
      expect(yield* stored).toEqual({ contactEvents: 22, contacts: 22, rows: kept })
    })
  )

  it.effect("take parameters as text, cast where the SQL says, and at most 32 of them", () =>
    Effect.gen(function* () {
      const tooMany = {
        sql: `SELECT ${Array.from({ length: 33 }, (_, i) => `$${i + 1}`).join(", ")}`,
        params: Array.from({ length: 33 }, () => 1)
      }
      const { engine, sql } = yield* setUp(() => [
        inlineProjection({
          name: "typed",
          types: ["contact.created"],
          project: (events) => events,
          postgres: (event) => [
            {
              sql: "INSERT INTO ip_typed (id, version, data, flag, nothing) VALUES ($1, $2::integer, $3::jsonb, $4::boolean, $5)",
              params: [event.stream_id, event.stream_version, event.data, true, null]
            },
            ...(JSON.stringify(event.data).includes("many@") ? [tooMany] : [])
          ]
        })
      ])
      yield* sql.unsafe("CREATE TABLE ip_typed (id text, version integer, data jsonb, flag boolean, nothing text)")
      const ada = yield* engine.contacts.create(ctx, { email: "ada@x.io" })
      const failed = yield* Effect.flip(engine.contacts.create(ctx, { email: "many@x.io" }))
      expect(failed._tag === "ProjectionFailed" ? failed.message : failed).toBe(
        "inline projection typed gave a statement 33 parameters; at most 32 are taken"
      )
      const rows = yield* sql.unsafe<{ id: string; version: number; data: unknown; flag: boolean; nothing: string | null }>(
        "SELECT id, version, data, flag, nothing FROM ip_typed"
      )
      expect(rows).toEqual([{ id: ada.data["id"], version: 1, data: { contact: ada.data }, flag: true, nothing: null }])
    })
  )
})
