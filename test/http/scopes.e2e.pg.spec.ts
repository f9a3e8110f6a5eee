import { BUILT_IN_SCOPES } from "@dealstream/core"
import { describe, expect, it } from "vitest"
import { errorOf, hostFor, KEY_A, STORAGES } from "./client.js"

// API key scopes (issue 33, item 1): every operation of the served OpenAPI document declares the
// one scope it needs; a key without it is answered 403 `forbidden` naming the scope, before
// anything happens (the workspace's log does not move), and a key with exactly that scope is not.

/** One configured key per scope, in workspace A beside its all-powerful KEY_A. */
const keyFor = (scope: string) => `key_scope_${scope.replace(/\W/g, "_")}_0123456789`
const API_KEYS = [`ws_a:${KEY_A}`, ...BUILT_IN_SCOPES.map((scope) => `ws_a:${keyFor(scope)}@${scope}`)].join(",")

interface Operation {
  readonly security?: ReadonlyArray<Record<string, ReadonlyArray<string>>>
}

/** A request target for a path template: every `{param}` an id no record has. */
const target = (path: string) => path.replace(/\{[^}]+\}/g, "x_scope_test")

for (const storage of STORAGES) {
  describe(`scopes on ${storage} storage`, () => {
    const host = hostFor(storage, { apiKeys: API_KEYS })

    it("every operation needs one scope: without it 403 before any effect, with it something else", async () => {
      const document = (await host.call("GET", "/v1/openapi.json", { key: null })).body
      const head = async () => (await host.call("GET", "/v1/events?limit=1000")).body.data.length
      const before = await head()
      let checked = 0
      for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
        for (const [method, operation] of Object.entries(item)) {
          const requirements = operation.security ?? []
          if (requirements.length === 0) continue
          const scopes = requirements.flatMap((requirement) => Object.values(requirement).flat())
          expect(scopes.length, `${method} ${path} declares its scope`).toBe(1)
          const scope = scopes[0]!
          expect(BUILT_IN_SCOPES as ReadonlyArray<string>, `${method} ${path}`).toContain(scope)
          const other = BUILT_IN_SCOPES.find((candidate) => candidate !== scope)!
          const verb = method.toUpperCase()
          const body = verb === "GET" || verb === "DELETE" ? undefined : {}
          const refused = await host.call(verb, target(path), { key: keyFor(other), ...(body === undefined ? {} : { body }) })
          expect(refused.status, `${verb} ${path} with ${other}: ${refused.text}`).toBe(403)
          expect(errorOf(refused).code).toBe("forbidden")
          expect(errorOf(refused).details[0]!.scope).toBe(scope)
          const allowed = await host.call(verb, target(path), { key: keyFor(scope), ...(body === undefined ? {} : { body }) })
          expect(allowed.status, `${verb} ${path} with ${scope}: ${allowed.text}`).not.toBe(403)
          checked++
        }
      }
      expect(checked).toBeGreaterThan(40)
      // Nothing any refused request could have written is in the log; what the allowed ones wrote
      // (an empty body is refused as invalid everywhere) neither.
      expect(await head()).toBe(before)
    })

    it("a key given with scopes in DEALSTREAM_API_KEYS reads but does not write", async () => {
      const reader = keyFor("contacts:read")
      expect((await host.call("GET", "/v1/contacts", { key: reader })).status).toBe(200)
      const refused = await host.call("POST", "/v1/contacts", { key: reader, body: { email: "scoped@example.com" } })
      expect(refused.status).toBe(403)
      expect(errorOf(refused).message).toContain("contacts:write")
      expect((await host.call("POST", "/v1/contacts", { body: { email: "scoped@example.com" } })).status).toBe(201)
    })
  })
}
