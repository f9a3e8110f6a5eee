import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { prop } from "../testing/property.js"
import { Result } from "effect"
import type { Projected } from "../decider.js"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import type { JsonObject } from "../json.js"
import type { ContactCommand } from "./commands.js"
import { contactDecider } from "./decider.js"
import type { ContactEvent } from "./events.js"
import { projectContact } from "./projection.js"

const id = "con_1"
const start = Date.parse("2026-01-01T00:00:00.000Z")
const DAY = 24 * 60 * 60 * 1000

const patch: fc.Arbitrary<JsonObject> = fc.record(
  {
    email: fc.constantFrom("ada@example.com", "ADA@example.com", "grace@example.com"),
    first_name: fc.constantFrom("Ada", "Grace", null),
    title: fc.constantFrom("CTO", null),
    industry: fc.constantFrom("saas", "fintech", null)
  },
  { requiredKeys: [] }
)

type Step =
  | { readonly kind: "update"; readonly fields: JsonObject; readonly gap: number }
  | { readonly kind: "delete" | "restore" | "purge"; readonly gap: number }

// Gaps up to 40 days, so some restores fall outside the recovery window and some purges inside it.
const gap = fc.integer({ min: 0, max: 40 * DAY })
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("update" as const), fields: patch, gap }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("delete" as const), gap }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("restore" as const), gap }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("purge" as const), gap }), weight: 1 }
)

const commandOf = (s: Step, at: string): ContactCommand => {
  switch (s.kind) {
    case "update":
      return { type: "UpdateContact", id, at, fields: s.fields }
    case "delete":
      return { type: "DeleteContact", id, at }
    case "restore":
      return { type: "RestoreContact", id, at }
    case "purge":
      return { type: "PurgeContact", id, at }
  }
}

/** Runs the commands as the engine would: decide, evolve, and keep the document up to date. */
const run = (steps: ReadonlyArray<Step>) => {
  let now = start
  const createdAt = new Date(now).toISOString()
  const log: Array<ContactEvent> = []
  let state = contactDecider.initialState
  let doc: Projected | null = null
  const trace: Array<{ step: Step; at: string; before: Projected | null; after: Projected | null; accepted: boolean }> = []
  const apply = (command: ContactCommand) => {
    const before = doc
    const result = contactDecider.decide(command, state)
    if (Result.isSuccess(result)) {
      for (const event of result.success) {
        log.push(event)
        state = contactDecider.evolve(state, event)
        doc = projectContact(doc, event)
      }
    }
    return { before, accepted: Result.isSuccess(result) }
  }
  apply({
    type: "CreateContact",
    id,
    at: createdAt,
    fields: { email: "ada@example.com", first_name: null, last_name: null, phone: null, title: null, company_id: null, source: null, owner_id: null }
  })
  for (const s of steps) {
    now += s.gap
    const at = new Date(now).toISOString()
    const { accepted, before } = apply(commandOf(s, at))
    trace.push({ step: s, at, before, after: doc, accepted })
  }
  return { log, doc: doc as Projected | null, trace }
}

// That the documents stored while commands run equal a rebuild from the log is a property of the
// engine and its storage, not of this fold: test/engine/rebuildEqualsStored.*.spec.ts.
describe("contact properties", () => {
  prop("a restore within 30 days gives back the document as it was before the delete", [fc.array(step, { maxLength: 30 })], ([steps]) => {
    const { trace } = run(steps)
    let beforeDelete: Projected | null = null
    let deletedAt = 0
    for (const { accepted, after, at, before, step: s } of trace) {
      if (!accepted) continue
      if (s.kind === "delete") {
        beforeDelete = before
        deletedAt = Date.parse(at)
      }
      if (s.kind === "restore") {
        expect(Date.parse(at) - deletedAt).toBeLessThanOrEqual(RECOVERY_WINDOW_MILLIS)
        expect(after).toEqual(beforeDelete)
      }
    }
  })

  prop("a patch applied twice changes nothing the second time", [patch], ([fields]) => {
    const { log } = run([{ kind: "update", fields, gap: 1 }, { kind: "update", fields, gap: 1 }])
    expect(log.filter((e) => e.type === "contact.updated").length).toBeLessThanOrEqual(1)
  })
})
