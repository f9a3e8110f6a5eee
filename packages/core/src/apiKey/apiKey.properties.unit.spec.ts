import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { prop } from "../testing/property.js"
import { Result } from "effect"
import type { Projected } from "../decider.js"
import type { ApiKeyCommand } from "./commands.js"
import { apiKeyDecider } from "./decider.js"
import type { ApiKeyEvent } from "./events.js"
import { apiKeyIdOf } from "./input.js"
import { ownerOf, projectApiKey } from "./projection.js"

const start = Date.parse("2026-01-01T00:00:00.000Z")
const hex = fc.stringMatching(/^[0-9a-f]{64}$/)
const workspace = fc.constantFrom("acme", "globex", "ws_1")
interface Step {
  readonly kind: "create" | "revoke"
  readonly keySha256: string
  readonly workspaceId: string
  readonly gap: number
}
const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom("create" as const, "revoke" as const),
  keySha256: hex,
  workspaceId: workspace,
  gap: fc.integer({ min: 0, max: 60_000 })
})

/** Runs the commands on one key's stream as the engine does: decide, evolve, project incrementally. */
const run = (steps: ReadonlyArray<Step>, id: string) => {
  let now = start
  let state = apiKeyDecider.initialState
  let doc: Projected | null = null
  const log: Array<ApiKeyEvent> = []
  const outcomes: Array<{ command: ApiKeyCommand; accepted: boolean; events: ReadonlyArray<ApiKeyEvent> }> = []
  for (const s of steps) {
    now += s.gap
    const at = new Date(now).toISOString()
    const command: ApiKeyCommand = s.kind === "create"
      ? { type: "CreateApiKey", id, at, workspaceId: s.workspaceId, keySha256: s.keySha256 }
      : { type: "RevokeApiKey", id, at }
    const decided = apiKeyDecider.decide(command, state)
    const events = Result.getOrElse(decided, () => [])
    for (const event of events) {
      state = apiKeyDecider.evolve(state, event)
      doc = projectApiKey(doc, event)
      log.push(event)
    }
    outcomes.push({ command, accepted: Result.isSuccess(decided), events })
  }
  return { log, doc, state, outcomes }
}

describe("API keys over random command sequences", () => {
  prop("a key is created once, revoked at most once, and grants access exactly while created and not revoked", [
    fc.array(step, { maxLength: 12 }),
    hex
  ], ([steps, first]) => {
    const id = apiKeyIdOf(first)
    const { doc, log, outcomes, state } = run(steps, id)
    expect(log.filter((e) => e.type === "api_key.created").length).toBeLessThanOrEqual(1)
    expect(log.filter((e) => e.type === "api_key.revoked").length).toBeLessThanOrEqual(1)
    // Only the first create is accepted; a revoke is refused only before it.
    const firstCreate = outcomes.findIndex((o) => o.command.type === "CreateApiKey")
    outcomes.forEach((o, i) => {
      if (o.command.type === "CreateApiKey") expect(o.accepted).toBe(i === firstCreate)
      else expect(o.accepted).toBe(firstCreate >= 0 && i > firstCreate)
    })
    const revokedAfterCreate = firstCreate >= 0 && outcomes.slice(firstCreate).some((o) => o.command.type === "RevokeApiKey")
    const owner = doc === null ? null : ownerOf(doc.data)
    if (firstCreate < 0) expect(doc).toBeNull()
    else if (revokedAfterCreate) expect(owner).toBeNull()
    else expect(owner).toEqual({ workspaceId: (steps[firstCreate]!).workspaceId, keyId: id })
    expect(state.status).toBe(firstCreate < 0 ? "absent" : revokedAfterCreate ? "revoked" : "active")
  })

  // That the key documents stored while commands run equal what the log projects to is a property of
  // the engine and its storage, not of this fold: test/engine/rebuildEqualsStored.*.spec.ts.
  prop("the document never holds the digest", [
    fc.array(step, { maxLength: 12 }),
    hex
  ], ([steps, first]) => {
    const { doc, log } = run(steps, apiKeyIdOf(first))
    const created = log.find((e) => e.type === "api_key.created")
    if (created !== undefined) expect(JSON.stringify(doc)).not.toContain(created.data.key_sha256)
  })
})
