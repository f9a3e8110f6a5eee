import { describe, expect } from "@effect/vitest"
import * as fc from "fast-check"
import { createApiKey, keySha256, revokeApiKey, updateApiKey } from "../testing/arbitraries/apiKey.js"
import { incrementalProblems } from "../testing/invariants/rebuild.js"
import { prop } from "../testing/property.js"
import { traceCommands } from "../testing/trace.js"
import type { ApiKeyCommand } from "./commands.js"
import { apiKeyAggregate } from "./aggregate.js"
import { apiKeyIdOf } from "./input.js"
import { ownerOf } from "./projection.js"
import { type ApiKeyScopes, grants } from "./scopes.js"

/** Random creates (of any digest and workspace), updates and revokes, all on one key's stream, in time order. */
const script = fc
  .tuple(fc.array(fc.oneof(createApiKey, updateApiKey, revokeApiKey), { maxLength: 12 }), keySha256)
  .map(([commands, first]) => {
    const id = apiKeyIdOf(first)
    return commands.map(
      (c, i): ApiKeyCommand => ({ ...c, id, at: new Date(Date.parse("2026-01-01T00:00:00.000Z") + i * 86_400_000).toISOString() })
    )
  })

/** The key as a plain model follows it: what each command should do, by the rules written out once more. */
interface Model {
  readonly workspaceId: string
  readonly revoked: boolean
  readonly scopes: ApiKeyScopes
  readonly expiresAt: string | null
}

const expired = (model: Model, at: string) => model.expiresAt !== null && model.expiresAt <= at
const manages = (model: Model, at: string) => !model.revoked && !expired(model, at) && grants(model.scopes, "keys:manage")

describe("API keys over random command sequences", () => {
  prop(
    "a key is created once, changed only while live and unexpired, revoked at most once, and the last manager stays",
    [script],
    ([commands]) => {
      const { document, history, state, steps } = traceCommands(apiKeyAggregate, commands)
      expect(history.filter((e) => e.type === "api_key.created").length).toBeLessThanOrEqual(1)
      expect(history.filter((e) => e.type === "api_key.revoked").length).toBeLessThanOrEqual(1)
      let model = null as Model | null
      for (const { command, error, events } of steps) {
        const { at } = command
        const accepted = error === null
        switch (command.type) {
          case "CreateApiKey": {
            const valid = command.expiresAt === null || command.expiresAt > at
            expect(accepted).toBe(model === null && valid)
            if (accepted) model = { workspaceId: command.workspaceId, revoked: false, scopes: command.scopes, expiresAt: command.expiresAt }
            break
          }
          case "UpdateApiKey": {
            if (model === null || model.revoked || expired(model, at)) {
              expect(accepted).toBe(false)
              break
            }
            if (!accepted || events.length === 0) break
            const next: Model = {
              ...model,
              ...(command.scopes === undefined ? {} : { scopes: command.scopes }),
              ...(command.expiresAt === undefined ? {} : { expiresAt: command.expiresAt })
            }
            // An accepted update leaves a key that managed for good, and was alone, still managing for good.
            if (command.guard?.othersManage === false && manages(model, at) && model.expiresAt === null) {
              expect(grants(next.scopes, "keys:manage") && next.expiresAt === null).toBe(true)
            }
            if (next.expiresAt !== null && next.expiresAt !== model.expiresAt) expect(next.expiresAt > at).toBe(true)
            model = next
            break
          }
          case "RevokeApiKey": {
            if (model === null) {
              expect(accepted).toBe(false)
              break
            }
            const refused = !model.revoked && command.guard?.othersManage === false && manages(model, at)
            expect(accepted).toBe(!refused)
            if (accepted) model = { ...model, revoked: true }
          }
        }
      }
      const owner = document === null ? null : ownerOf(document.data)
      if (model === null) expect(document).toBeNull()
      else if (model.revoked) expect(owner).toBeNull()
      else
        expect(owner).toEqual({ workspaceId: model.workspaceId, keyId: commands[0]!.id, scopes: model.scopes, expiresAt: model.expiresAt })
      expect(state.status).toBe(model === null ? "absent" : model.revoked ? "revoked" : "active")
    }
  )

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
