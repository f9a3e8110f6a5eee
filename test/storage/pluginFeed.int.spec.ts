import { RecordTypes, Storage } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { note } from "../plugins/note/note.js"
import { heardFirst } from "../support/feedHeard.js"

/**
 * The memory storage keys collections by name, so a record type plug-in's documents need nothing of
 * their own; its events reach the change feed's listeners once the storage is given the plug-in
 * (core's RecordTypes). PostgreSQL's side is test/storage/pluginTables.pg.spec.ts.
 */
describe("MemoryStorage given a record type plug-in", () => {
  it.live("tells the feed's listeners of a commit of the plug-in's events", () =>
    Effect.gen(function* () {
      const storage = yield* MemoryStorage.make.pipe(Effect.provideService(RecordTypes, [note]))
      yield* heardFirst(storage, { told: "note.created", untold: "delivery.scheduled" })
    })
  )

  it.live("its layer reads the plug-ins from the context", () =>
    Effect.gen(function* () {
      yield* heardFirst(yield* Storage, { told: "note.created", untold: "delivery.scheduled" })
    }).pipe(Effect.provide(MemoryStorage.layer.pipe(Layer.provide(Layer.succeed(RecordTypes)([note])))))
  )

  it.live("without the plug-in, tells nobody of its events", () =>
    Effect.gen(function* () {
      yield* heardFirst(yield* MemoryStorage.make, { told: "contact.created", untold: "note.created" })
    })
  )
})
