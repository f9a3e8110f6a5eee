import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { type Aggregate, aggregateOf, decodeEvents, isErased, isStreamOf } from "./aggregate.js"
import { contactAggregate } from "./contact/aggregate.js"
import type { Decider } from "./decider.js"
import { aggregates } from "./engine/contract/aggregates.js"
import type { StoredEvent } from "./storage/events.js"
import { DomainEvent } from "./storage/events.js"

const at = "2026-01-01T00:00:00.000Z"

const stored = (streamId: string, events: ReadonlyArray<{ readonly type: string; readonly data: StoredEvent["data"] }>) =>
  events.map(
    (event, i): StoredEvent => ({
      ...event,
      streamId,
      streamVersion: i + 1,
      sequence: i + 1,
      recordedAt: at,
      metadata: { workspaceId: "acme", eventId: `evt_${i + 1}`, requestId: null, actor: null }
    })
  )

// A throwaway aggregate whose first event was once stored with `text`, and is written with `body` today.
const NoteWritten = DomainEvent("note.written", { id: Schema.String, body: Schema.String, at: Schema.String })
type NoteWritten = typeof NoteWritten.Type
const noteDecider: Decider<never, NoteWritten, ReadonlyArray<string>> = {
  initialState: [],
  evolve: (bodies, event) => [...bodies, event.data.body],
  decide: () => Result.succeed([])
}
const noteAggregate: Aggregate<never, NoteWritten, ReadonlyArray<string>> = {
  name: "note",
  prefix: "note",
  decider: noteDecider,
  events: NoteWritten,
  // The upcaster: the old shape, read as today's.
  upcast: (event) => {
    const { text, ...rest } = event.data
    return event.type === "note.written" && typeof text === "string" ? { type: event.type, data: { ...rest, body: text } } : event
  },
  project: null,
  documents: () => [],
  collections: [],
  rebuilt: false
}

describe("decodeEvents", () => {
  it("reads a stream as its aggregate's events", () => {
    const events = stored("con_1", [
      { type: "contact.created", data: { id: "con_1", fields: { email: "ada@example.com" }, at } },
      { type: "contact.updated", data: { changed: { title: "CEO" }, at } }
    ])
    expect(decodeEvents(contactAggregate, events)).toEqual(
      Result.succeed([
        { type: "contact.created", data: { id: "con_1", fields: { email: "ada@example.com" }, at } },
        { type: "contact.updated", data: { changed: { title: "CEO" }, at } }
      ])
    )
  })

  it("refuses an event its Schema does not accept, naming the stream, the version and the type", () => {
    const events = stored("con_1", [
      { type: "contact.created", data: { id: "con_1", fields: {}, at } },
      { type: "contact.updated", data: { changed: "title", at } }
    ])
    const decoded = decodeEvents(contactAggregate, events)
    expect(Result.isFailure(decoded)).toBe(true)
    if (Result.isFailure(decoded)) {
      expect(decoded.failure).toMatchObject({ _tag: "UndecodableEvent", streamId: "con_1", streamVersion: 2, type: "contact.updated" })
      expect(decoded.failure.message).toMatch(/^event 2 \(contact\.updated\) of stream con_1 does not decode: /)
    }
    // Another aggregate's events are not this one's.
    expect(Result.isFailure(decodeEvents(contactAggregate, stored("x", [{ type: "deal.deleted", data: { at } }])))).toBe(true)
  })

  it("upcasts an older stored shape before decoding it, and leaves today's alone", () => {
    const events = stored("note_1", [
      { type: "note.written", data: { id: "note_1", text: "written in 2025", at } },
      { type: "note.written", data: { id: "note_1", body: "written today", at } }
    ])
    const decoded = decodeEvents(noteAggregate, events)
    expect(decoded).toEqual(
      Result.succeed([
        { type: "note.written", data: { id: "note_1", body: "written in 2025", at } },
        { type: "note.written", data: { id: "note_1", body: "written today", at } }
      ])
    )
    // Without the upcaster, the old shape is a defect.
    expect(Result.isFailure(decodeEvents({ ...noteAggregate, upcast: undefined }, events))).toBe(true)
  })
})

describe("isErased", () => {
  it("is true for a purged record's stream and for a stream whose events were redacted", () => {
    expect(isErased(stored("con_1", [{ type: "contact.created", data: { id: "con_1", fields: {}, at } }]))).toBe(false)
    expect(
      isErased(
        stored("con_1", [
          { type: "contact.created", data: { redacted: true } },
          { type: "contact.purged", data: { at } }
        ])
      )
    ).toBe(true)
    expect(isErased(stored("dlv_1", [{ type: "delivery.scheduled", data: { redacted: true } }]))).toBe(true)
  })
})

describe("the registered aggregates", () => {
  it("each tell their streams by their own prefix", () => {
    const prefixes = aggregates.map((aggregate) => aggregate.prefix)
    expect(new Set(prefixes).size).toBe(prefixes.length)
    for (const aggregate of aggregates) {
      expect(aggregateOf(aggregates, `${aggregate.prefix}_01h`)).toBe(aggregate)
    }
    expect(aggregateOf(aggregates, "wsx_acme")).toBeUndefined()
    expect(isStreamOf(contactAggregate, "deal_01h")).toBe(false)
    // A prefix is a whole word: `con` does not own `contact_…`.
    expect(isStreamOf(contactAggregate, "contact_01h")).toBe(false)
  })

  it("are named as their events are", () => {
    const names = aggregates.map((aggregate) => aggregate.name)
    expect(names).toEqual([
      "contact",
      "deal",
      "activity",
      "company",
      "pipeline",
      "webhook",
      "delivery",
      "custom_field",
      "api_key",
      "workspace",
      "recovery"
    ])
  })
})
