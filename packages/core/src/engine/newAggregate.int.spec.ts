import { describe, expect, it } from "@effect/vitest"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Effect, Layer, Result, Schema } from "effect"
import { type Aggregate, documentWrite, foldProjection } from "../aggregate.js"
import type { Decider, Projected } from "../decider.js"
import { Conflict, type DomainError, NotFound } from "../errors.js"
import type { PluginCollection } from "../storage/documents.js"
import { DomainEvent } from "../storage/events.js"
import { Storage } from "../storage/Storage.js"
import { aggregates } from "./contract/aggregates.js"
import { engineDeps } from "./base/deps.js"
import { handleCommand } from "./commands/handleCommand.js"
import { readState } from "./base/streamStates.js"
import { IdsLive } from "./contract/Ids.js"
import { rebuildDocuments } from "./workers/rebuild.js"
import { WebhookConfig } from "./contract/WebhookConfig.js"
import { WebhookTransport, WebhookTransportUnavailable } from "./contract/WebhookTransport.js"

// ------------------------------------------------------------- a new record type, as its folder would hold it

// events.ts: `note.written` was once stored with `text`; it is written with `body` today.
const NoteWritten = DomainEvent("note.written", { id: Schema.String, body: Schema.String, at: Schema.String })
const NoteEdited = DomainEvent("note.edited", { body: Schema.String, at: Schema.String })
const NoteEvent = Schema.Union([NoteWritten, NoteEdited])
type NoteEvent = typeof NoteEvent.Type

// commands.ts
type NoteCommand =
  | { readonly type: "WriteNote"; readonly id: string; readonly at: string; readonly body: string }
  | { readonly type: "EditNote"; readonly id: string; readonly at: string; readonly body: string }

// decider.ts
type NoteState = { readonly status: "absent" } | { readonly status: "written"; readonly body: string }
const noteDecider: Decider<NoteCommand, NoteEvent, NoteState> = {
  initialState: { status: "absent" },
  evolve: (_state, event) => ({ status: "written", body: event.data.body }),
  decide: (command, state): Result.Result<ReadonlyArray<NoteEvent>, DomainError> => {
    switch (command.type) {
      case "WriteNote":
        return state.status === "absent"
          ? Result.succeed([{ type: "note.written", data: { id: command.id, body: command.body, at: command.at } }])
          : Result.fail(new Conflict({ message: `note ${command.id} already exists`, details: [] }))
      case "EditNote":
        if (state.status === "absent") return Result.fail(new NotFound({ resource: "note", id: command.id }))
        return Result.succeed(state.body === command.body ? [] : [{ type: "note.edited", data: { body: command.body, at: command.at } }])
    }
  }
}

// projection.ts
const projectNote = (doc: Projected | null, event: NoteEvent): Projected | null =>
  event.type === "note.written"
    ? { data: { id: event.data.id, body: event.data.body, updated_at: event.data.at }, deletedAt: null }
    : doc === null
      ? null
      : { ...doc, data: { ...doc.data, body: event.data.body, updated_at: event.data.at } }

// aggregate.ts: the descriptor, over a collection of its own (a plug-in's, record/plugin.ts: memory
// storage keeps any; PostgreSQL is given its table by the plug-in's migration).
const noteCollection = "note" as PluginCollection

const noteAggregate: Aggregate<NoteCommand, NoteEvent, NoteState> = {
  name: "note",
  prefix: "note",
  decider: noteDecider,
  events: NoteEvent,
  upcast: (event) => {
    const { text, ...rest } = event.data
    return event.type === "note.written" && typeof text === "string" ? { type: event.type, data: { ...rest, body: text } } : event
  },
  project: projectNote,
  documents: ({ id, workspaceId }, { before, fresh, version }) => [
    documentWrite(noteCollection, workspaceId, id, version, foldProjection(projectNote, fresh, before))
  ],
  collections: [noteCollection],
  rebuilt: true
}

// ------------------------------------------------------------- and its one registration line (engine/contract/aggregates.ts)

const registered = [...aggregates, noteAggregate]

// -------------------------------------------------------------

const services = Layer.mergeAll(
  MemoryStorage.layer,
  IdsLive,
  WebhookConfig.layer(),
  Layer.succeed(WebhookTransport, WebhookTransportUnavailable)
)
const ctx = { workspaceId: "acme", requestId: null, actor: "test" }

const notes = Effect.gen(function* () {
  const storage = yield* Storage
  return yield* storage.queryDocuments(noteCollection, "acme", {
    where: { _tag: "True" },
    scope: "live",
    sort: { field: { name: "id", type: "id" }, direction: "asc" },
    after: null,
    limit: 100
  })
})

describe("a new aggregate: a folder with its descriptor, and one registration line", () => {
  it.effect("goes through the command handler, its old events upcast, and rebuild walks it", () =>
    Effect.gen(function* () {
      const deps = yield* engineDeps
      const id = yield* deps.ids.make(noteAggregate.prefix)
      const write = (streamId: string, body: string, options: { readonly stream?: "new"; readonly ifMatch?: number } = {}) =>
        handleCommand(deps, noteAggregate, {
          ctx,
          streamId,
          ...options,
          command: ({ at }) =>
            Effect.succeed(
              options.stream === "new" ? { type: "WriteNote", id: streamId, at, body } : { type: "EditNote", id: streamId, at, body }
            )
        })

      expect((yield* write(id, "first", { stream: "new" })).version).toBe(1)
      expect((yield* write(id, "second", { ifMatch: 1 })).version).toBe(2)
      // The handler's checks hold for it as for every aggregate.
      expect((yield* Effect.flip(write(id, "third", { ifMatch: 1 })))._tag).toBe("PreconditionFailed")
      expect(yield* Effect.flip(write("con_01h", "x"))).toMatchObject({ _tag: "NotFound", resource: "note", id: "con_01h" })
      expect((yield* write(id, "second")).fresh).toEqual([])

      // A note stored before `text` became `body`: read through the upcaster.
      yield* deps.storage.commit({
        streams: [
          {
            streamId: "note_old",
            expectedVersion: 0,
            events: [
              {
                type: "note.written",
                data: { id: "note_old", text: "from 2025", at: "2025-06-01T00:00:00.000Z" },
                metadata: { workspaceId: "acme", eventId: "evt_old", requestId: null, actor: null }
              }
            ]
          }
        ],
        documents: []
      })
      expect((yield* readState(deps.storage, noteAggregate, ctx, "note_old")).projected?.data).toEqual({
        id: "note_old",
        body: "from 2025",
        updated_at: "2025-06-01T00:00:00.000Z"
      })
      yield* write("note_old", "edited")

      const stored = yield* notes
      expect(stored.map((doc) => [doc.id, doc.data["body"], doc.version])).toEqual([
        [id, "second", 2],
        ["note_old", "edited", 2]
      ])
      // Rebuild projects the new aggregate's streams as the command path did.
      yield* rebuildDocuments(undefined, registered)
      expect(yield* notes).toEqual(stored)
    }).pipe(Effect.scoped, Effect.provide(services))
  )
})
