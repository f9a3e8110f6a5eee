import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ctxOf, withEngine } from "../support/engine.js"

const ws = ctxOf("acme")
const other = ctxOf("globex")

describe("engine: contacts", () => {
  it.effect("creates, reads, patches only the given fields, and lists", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const created = yield* engine.contacts.create(ws, { email: "Ada@Example.com", first_name: "Ada" })
        const id = created.data["id"] as string
        expect(id).toMatch(/^con_/)
        expect(created.data).toMatchObject({ email: "Ada@Example.com", first_name: "Ada", last_name: null, deal_ids: [], company_ids: [] })
        expect(created.version).toBe(1)
        const patched = yield* engine.contacts.update(ws, id, { last_name: "Lovelace" }, 1)
        expect(patched.data).toMatchObject({ first_name: "Ada", last_name: "Lovelace" })
        expect(patched.version).toBe(2)
        const same = yield* engine.contacts.update(ws, id, { last_name: "Lovelace" }, null)
        expect(same.version).toBe(2)
        yield* engine.contacts.create(ws, { email: "grace@example.com", first_name: "Grace" })
        const page = yield* engine.contacts.list(ws, { search: "ada@ex", limit: "10" })
        expect(page.data.map((c) => c["id"])).toEqual([id])
      })
    )
  )

  it.effect("refuses a second live contact with the same email in any case, names the holder, frees it on delete", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const first = yield* engine.contacts.create(ws, { email: "dup@example.com" })
        const firstId = first.data["id"] as string
        const clash = yield* Effect.flip(engine.contacts.create(ws, { email: "DUP@example.COM" }))
        expect(clash._tag).toBe("Conflict")
        if (clash._tag === "Conflict") expect(clash.details[0]?.id).toBe(firstId)
        // another workspace is free to use it
        yield* engine.contacts.create(other, { email: "dup@example.com" })
        yield* engine.contacts.delete(ws, firstId, null)
        yield* engine.contacts.create(ws, { email: "dup@example.com" })
        const restore = yield* Effect.flip(engine.contacts.restore(ws, firstId))
        expect(restore._tag).toBe("Conflict")
      })
    )
  )

  it.effect("soft-deletes into the trash and restores the identical document", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const created = yield* engine.contacts.create(ws, { email: "t@example.com", title: "CTO" })
        const id = created.data["id"] as string
        const before = yield* engine.contacts.get(ws, id, null)
        yield* engine.contacts.delete(ws, id, null)
        expect((yield* Effect.flip(engine.contacts.get(ws, id, null)))._tag).toBe("NotFound")
        expect((yield* engine.contacts.list(ws, {})).data).toEqual([])
        const trash = yield* engine.trash.list(ws, { type: "contact" })
        expect(trash.data).toHaveLength(1)
        expect(trash.data[0]).toMatchObject({ type: "contact", id, record: { email: "t@example.com" } })
        const restored = yield* engine.contacts.restore(ws, id)
        expect(restored.data).toEqual(before.data)
        expect((yield* engine.trash.list(ws, { type: "contact" })).data).toEqual([])
      })
    )
  )

  it.effect("keeps one workspace's contacts invisible and untouchable to another", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const created = yield* engine.contacts.create(ws, { email: "secret@example.com" })
        const id = created.data["id"] as string
        expect((yield* Effect.flip(engine.contacts.get(other, id, null)))._tag).toBe("NotFound")
        expect((yield* Effect.flip(engine.contacts.update(other, id, { title: "x" }, null)))._tag).toBe("NotFound")
        expect((yield* Effect.flip(engine.contacts.delete(other, id, null)))._tag).toBe("NotFound")
        expect((yield* engine.contacts.list(other, {})).data).toEqual([])
        expect((yield* engine.contacts.get(ws, id, null)).data["title"]).toBeNull()
      })
    )
  )

  it.effect("makes a stale If-Match fail and change nothing", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const created = yield* engine.contacts.create(ws, { email: "v@example.com" })
        const id = created.data["id"] as string
        yield* engine.contacts.update(ws, id, { title: "A" }, 1)
        const stale = yield* Effect.flip(engine.contacts.update(ws, id, { title: "B" }, 1))
        expect(stale._tag).toBe("PreconditionFailed")
        expect((yield* engine.contacts.get(ws, id, null)).data["title"]).toBe("A")
      })
    )
  )

  it.effect("accepts defined custom fields typed by their definition, filters and sorts by them, refuses unknown keys", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        yield* engine.customFields.create(ws, {
          object: "contact",
          key: "industry",
          label: "Industry",
          type: "enum",
          options: ["saas", "retail"]
        })
        yield* engine.customFields.create(ws, { object: "contact", key: "seats", label: "Seats", type: "number" })
        const a = yield* engine.contacts.create(ws, { email: "a@x.io", industry: "saas", seats: 10 })
        yield* engine.contacts.create(ws, { email: "b@x.io", industry: "retail", seats: 5 })
        yield* engine.contacts.create(ws, { email: "c@x.io", industry: "saas", seats: 50 })
        expect(a.data["industry"]).toBe("saas")
        const saas = yield* engine.contacts.list(ws, { filter: JSON.stringify({ industry: "saas" }), sort: "-seats" })
        expect(saas.data.map((c) => c["email"])).toEqual(["c@x.io", "a@x.io"])
        const typo = yield* Effect.flip(engine.contacts.create(ws, { email: "d@x.io", industri: "saas" }))
        expect(typo._tag).toBe("ValidationError")
        const wrongType = yield* Effect.flip(engine.contacts.create(ws, { email: "d@x.io", seats: "many" }))
        expect(wrongType._tag === "ValidationError" && wrongType.details[0]?.path).toBe("seats")
        const badFilter = yield* Effect.flip(engine.contacts.list(ws, { filter: JSON.stringify({ $or: [{ seats: { $gt: "x" } }] }) }))
        expect(badFilter._tag === "ValidationError" && badFilter.details[0]?.path).toBe("filter.$or[0].seats.$gt")
        // deleting a definition hides its values; defining the key again with another type shows
        // only values that fit the new type
        yield* engine.customFields.delete(ws, "contact", "seats")
        expect((yield* engine.contacts.get(ws, a.data["id"] as string, null)).data["seats"]).toBeUndefined()
        const gone = yield* Effect.flip(engine.contacts.list(ws, { sort: "seats" }))
        expect(gone._tag).toBe("ValidationError")
        yield* engine.customFields.create(ws, { object: "contact", key: "seats", label: "Seats", type: "text" })
        expect((yield* engine.contacts.get(ws, a.data["id"] as string, null)).data["seats"]).toBeNull()
        // the other workspace has no such field
        const elsewhere = yield* Effect.flip(engine.contacts.create(other, { email: "a@x.io", industry: "saas" }))
        expect(elsewhere._tag).toBe("ValidationError")
      })
    )
  )

  it.effect("pages through every contact exactly once while others are being created", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        for (let i = 0; i < 23; i++) yield* engine.contacts.create(ws, { email: `p${i}@x.io`, last_name: `n${i % 4}` })
        const seen: Array<string> = []
        let cursor: string | null = null
        let round = 0
        do {
          const page: { data: ReadonlyArray<Record<string, unknown>>; next_cursor: string | null } = yield* engine.contacts.list(ws, {
            limit: "5",
            sort: "-last_name",
            ...(cursor === null ? {} : { cursor })
          })
          seen.push(...page.data.map((c) => c["email"] as string))
          cursor = page.next_cursor
          // a newcomer sorting before the current position must not shift the pages
          yield* engine.contacts.create(ws, { email: `late${round++}@x.io`, last_name: "n9" })
        } while (cursor !== null)
        const original = Array.from({ length: 23 }, (_, i) => `p${i}@x.io`)
        expect(seen.filter((e) => e.startsWith("p")).sort()).toEqual(original.sort())
        expect(new Set(seen).size).toBe(seen.length)
      })
    )
  )
})

describe("engine: text no storage can keep", () => {
  it.effect("refuses U+0000 and lone surrogates in bodies and list parameters with the path, and stores nothing", () =>
    withEngine((engine) =>
      Effect.gen(function* () {
        const nul = yield* Effect.flip(engine.contacts.create(ws, { email: "n@x.io", title: "a\u0000b" }))
        expect(nul._tag === "ValidationError" && nul.details[0]?.path).toBe("title")
        const lone = yield* Effect.flip(engine.contacts.create(ws, { email: "n@x.io", tags: ["ok", "\ud800"] }))
        expect(lone._tag === "ValidationError" && lone.details[0]?.path).toBe("tags[1]")
        const inFilter = yield* Effect.flip(engine.contacts.list(ws, { search: "x\udc00" }))
        expect(inFilter._tag === "ValidationError" && inFilter.details[0]?.path).toBe("search")
        // a paired surrogate (an emoji) is ordinary text
        const emoji = yield* engine.contacts.create(ws, { email: "e@x.io", title: "\ud83d\ude80 launch" })
        expect(emoji.data["title"]).toBe("🚀 launch")
        expect((yield* engine.contacts.list(ws, {})).data).toHaveLength(1)
      })
    )
  )
})
