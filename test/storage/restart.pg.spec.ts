import { Engine, EngineLive, IdsLive, type RequestContext } from "@dealstream/core"
import { EmbeddedPostgres, PgStorage } from "@dealstream/storage-pg"
import { describe, expect, it } from "@effect/vitest"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { noWebhookSending } from "../support/engine.js"

const ctx: RequestContext = { workspaceId: "ws_restart", requestId: null, actor: "restart" }

/** An engine on an embedded server over `dataDir`, for as long as the scope is open. */
const hostOn = (dataDir: string) =>
  Effect.gen(function* () {
    const server = yield* EmbeddedPostgres.start({ dataDir })
    const context = yield* Layer.build(
      EngineLive.pipe(Layer.provide(PgStorage.layer(server.url)), Layer.provide(IdsLive), Layer.provide(noWebhookSending))
    )
    return { engine: Context.get(context, Engine), url: server.url }
  })

describe("embedded PostgreSQL", () => {
  // Its own server, whatever DATABASE_URL says: this is about the data directory surviving a stop.
  it.live(
    "keeps what was written across a stop and a start on the same data directory; a lost server is StorageUnavailable",
    () =>
      Effect.acquireUseRelease(
        Effect.promise(() => mkdtemp(join(tmpdir(), "dealstream-restart-"))),
        (dataDir) =>
          Effect.gen(function* () {
            const written = yield* Effect.scoped(
              Effect.gen(function* () {
                const { engine, url } = yield* hostOn(dataDir)
                const contact = yield* engine.contacts.create(ctx, { email: "kept@x.io", first_name: "Kept" })
                const deal = yield* engine.deals.create(ctx, {
                  name: "Survivor",
                  pipeline_id: (yield* engine.pipelines.list(ctx)).data[0]!["id"],
                  contact_ids: [contact.data["id"]]
                })
                return { contact: contact.data, deal: deal.data, url }
              })
            )
            // Stopped with its scope: the old address now refuses, with one line saying so.
            const refused = yield* Effect.flip(Effect.scoped(PgStorage.make(written.url)))
            expect(refused._tag).toBe("DatabaseError")
            expect(refused.message).toBe(
              `cannot connect to PostgreSQL at 127.0.0.1:${new URL(written.url).port}/dealstream: connection refused`
            )

            const again = yield* Effect.scoped(
              Effect.gen(function* () {
                const { engine } = yield* hostOn(dataDir)
                return {
                  contact: (yield* engine.contacts.get(ctx, written.contact["id"] as string, null)).data,
                  deal: (yield* engine.deals.get(ctx, written.deal["id"] as string)).data
                }
              })
            )
            expect(again.deal).toEqual(written.deal)
            expect(again.contact).toEqual({ ...written.contact, deal_ids: [written.deal["id"]] })

            // A storage that outlives its server answers StorageUnavailable, not a defect.
            yield* Effect.scoped(
              Effect.gen(function* () {
                const serverScope = yield* Scope.make()
                const server = yield* Scope.provide(EmbeddedPostgres.start({ dataDir }), serverScope)
                const storage = yield* PgStorage.make(server.url)
                yield* storage.ping
                yield* Scope.close(serverScope, Exit.void)
                const down = yield* Effect.flip(storage.ping)
                expect(down).toMatchObject({ _tag: "StorageUnavailable", message: "PostgreSQL is unavailable: connection refused" })
                const lost = yield* Effect.flip(storage.commit({ streams: [], documents: [] }))
                expect(lost._tag).toBe("StorageUnavailable")
              })
            )
          }),
        (dataDir) => Effect.promise(() => rm(dataDir, { recursive: true, force: true }))
      ),
    120_000
  )
})
