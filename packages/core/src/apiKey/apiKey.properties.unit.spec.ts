import { describe, expect } from "@effect/vitest"
import * as fc from "fast-check"
import { createApiKey, keySha256, revokeApiKey } from "../testing/arbitraries/apiKey.js"
import { incrementalProblems } from "../testing/invariants/rebuild.js"
import { prop } from "../testing/property.js"
import { traceCommands } from "../testing/trace.js"
import type { ApiKeyCommand } from "./commands.js"
import { apiKeyAggregate } from "./aggregate.js"
import { apiKeyIdOf } from "./input.js"
import { ownerOf } from "./projection.js"

/** Random creates (of any digest and workspace) and revokes, all on one key's stream, in time order. */
const script = fc.tuple(fc.array(fc.oneof(createApiKey, revokeApiKey), { maxLength: 12 }), keySha256).map(([commands, first]) => {
  const id = apiKeyIdOf(first)
  return commands.map(
    (c, i): ApiKeyCommand => ({ ...c, id, at: new Date(Date.parse("2026-01-01T00:00:00.000Z") + i * 1000).toISOString() })
  )
})

describe("API keys over random command sequences", () => {
  prop("a key is created once, revoked at most once, and grants access exactly while created and not revoked", [script], ([commands]) => {
    const { document, history, state, steps } = traceCommands(apiKeyAggregate, commands)
    expect(history.filter((e) => e.type === "api_key.created").length).toBeLessThanOrEqual(1)
    expect(history.filter((e) => e.type === "api_key.revoked").length).toBeLessThanOrEqual(1)
    // Only the first create is accepted; a revoke is refused only before it.
    const firstCreate = steps.findIndex((s) => s.command.type === "CreateApiKey")
    steps.forEach((s, i) => {
      if (s.command.type === "CreateApiKey") expect(s.error === null).toBe(i === firstCreate)
      else expect(s.error === null).toBe(firstCreate >= 0 && i > firstCreate)
    })
    const revokedAfterCreate = firstCreate >= 0 && steps.slice(firstCreate).some((s) => s.command.type === "RevokeApiKey")
    const owner = document === null ? null : ownerOf(document.data)
    const created = steps[firstCreate]?.command
    if (created === undefined) expect(document).toBeNull()
    else if (revokedAfterCreate) expect(owner).toBeNull()
    else
      expect(owner).toEqual({ workspaceId: created.type === "CreateApiKey" ? created.workspaceId : null, keyId: created.id, scopes: "*" })
    expect(state.status).toBe(firstCreate < 0 ? "absent" : revokedAfterCreate ? "revoked" : "active")
  })

  // That the key documents stored while commands run equal what the log projects to is a property of
  // the engine and its storage, not of this fold: test/engine/rebuildEqualsStored.*.spec.ts.
  prop("the document never holds the digest", [script], ([commands]) => {
    const { document, history } = traceCommands(apiKeyAggregate, commands)
    const created = history.find((e) => e.type === "api_key.created")
    if (created !== undefined) expect(JSON.stringify(document)).not.toContain(created.data.key_sha256)
  })

  prop("the documents written command by command are those a rebuild writes from the whole stream", [script], ([commands]) => {
    expect(incrementalProblems(apiKeyAggregate, traceCommands(apiKeyAggregate, commands))).toEqual([])
  })
})
