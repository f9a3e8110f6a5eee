import { describe, expect, it } from "vitest"
import { parse } from "./ApiKeys.js"
import { missingScope, scopeOf } from "./scopes.js"

describe("the scope a route needs", () => {
  const none = new Set<string>()
  it("follows the resource and the method", () => {
    expect(scopeOf("GET", "/v1/contacts", none)).toBe("contacts:read")
    expect(scopeOf("GET", "/v1/contacts/export", none)).toBe("contacts:read")
    expect(scopeOf("POST", "/v1/contacts/batch", none)).toBe("contacts:write")
    expect(scopeOf("PUT", "/v1/deals/deal_1/stage", none)).toBe("deals:write")
    expect(scopeOf("GET", "/v1/deals/{id}/timeline", none)).toBe("deals:read")
    expect(scopeOf("GET", "/v1/contacts/con_1/export", none)).toBe("privacy:manage")
    expect(scopeOf("POST", "/v1/contacts/con_1/erase", none)).toBe("privacy:manage")
    expect(scopeOf("GET", "/v1/custom-fields", none)).toBe("custom_fields:read")
    expect(scopeOf("DELETE", "/v1/custom-fields/contact/tier", none)).toBe("custom_fields:write")
    expect(scopeOf("GET", "/v1/webhook-event-types", none)).toBe("webhooks:manage")
    expect(scopeOf("GET", "/v1/events/evt_1", none)).toBe("events:read")
    expect(scopeOf("GET", "/v1/trash", none)).toBe("trash:manage")
    expect(scopeOf("PATCH", "/v1/api-keys/key_1", none)).toBe("keys:manage")
  })
  it("gives a plug-in's collection its own scopes, and nothing outside /v1 a scope", () => {
    expect(scopeOf("GET", "/v1/notes", new Set(["notes"]))).toBe("notes:read")
    expect(scopeOf("GET", "/v1/notes", none)).toBeNull()
    expect(scopeOf("GET", "/readyz", none)).toBeNull()
    expect(scopeOf("GET", "/v2/contacts", none)).toBeNull()
  })
  it("is missing only when the key has neither it nor everything", () => {
    expect(missingScope("*", "DELETE", "/v1/contacts/con_1", new Set())).toBeNull()
    expect(missingScope(["contacts:read"], "GET", "/v1/contacts", new Set())).toBeNull()
    expect(missingScope(["contacts:read"], "DELETE", "/v1/contacts/con_1", new Set())).toBe("contacts:write")
  })
})

describe("DEALSTREAM_API_KEYS with scopes", () => {
  it("reads `@` and scopes joined by `+`, and refuses what is no scope", () => {
    expect(parse("ws_a:key_a,ws_b:key_b@contacts:read+deals:write")).toEqual([
      { workspaceId: "ws_a", key: "key_a" },
      { workspaceId: "ws_b", key: "key_b", scopes: ["contacts:read", "deals:write"] }
    ])
    expect(() => parse("ws_a:key_a@contacts")).toThrow('API key entry 1: "contacts" is not a scope')
  })
})
