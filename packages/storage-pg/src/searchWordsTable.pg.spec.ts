import { type Collection, type DocumentQuery, type DocumentWrite, type JsonObject, searchWordsOfDocument, Storage } from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { testDatabase } from "../../../test/support/pg.js"
import * as PgStorage from "./PgStorage.js"

const Sql = PgClient.PgClient
const layer = Layer.unwrap(
  Effect.map(testDatabase, (url) =>
    Layer.merge(
      PgStorage.layer(url),
      Layer.effect(Sql, PgClient.make({ url: Redacted.make(url), transformJson: false })).pipe(Layer.provide(Reactivity.layer), Layer.orDie)
    )
  )
).pipe(Layer.orDie)

const nameField = { name: "name", type: "text" } as const
const searchFields = { fields: [nameField], wholeWordFields: [] }

const upsert = (collection: Collection, workspaceId: string, id: string, name: string, deletedAt: string | null = null): DocumentWrite => {
  const data: JsonObject = { id, name }
  return {
    _tag: "Upsert",
    collection,
    workspaceId,
    id,
    version: 1,
    deletedAt,
    uniqueKey: null,
    searchWords: searchWordsOfDocument(data, searchFields),
    data
  }
}
const remove = (collection: Collection, workspaceId: string, id: string): DocumentWrite => ({ _tag: "Remove", collection, workspaceId, id })

const search = (terms: ReadonlyArray<string>, scope: DocumentQuery["scope"] = "live"): DocumentQuery => ({
  where: { _tag: "Search", ...searchFields, terms },
  scope,
  sort: { field: { name: "id", type: "id" }, direction: "asc" },
  after: null,
  limit: 50
})

/** What the words tables hold for a workspace, and what the document tables' search_words say they should. */
const wordsTables = (workspaceId: string) =>
  Effect.gen(function* () {
    const sql = yield* Sql
    const held = yield* sql.unsafe<{ readonly row: string }>(
      `SELECT 'contact ' || word || ' ' || id AS row FROM ds_contacts_words WHERE workspace_id = $1
       UNION ALL SELECT 'deal ' || word || ' ' || id FROM ds_deals_words WHERE workspace_id = $1 ORDER BY 1`,
      [workspaceId]
    )
    const expected = yield* sql.unsafe<{ readonly row: string }>(
      `SELECT DISTINCT 'contact ' || left(w, 200) || ' ' || id AS row FROM ds_contacts, unnest(search_words) AS w WHERE workspace_id = $1
       UNION SELECT DISTINCT 'deal ' || left(w, 200) || ' ' || id FROM ds_deals, unnest(search_words) AS w WHERE workspace_id = $1 ORDER BY 1`,
      [workspaceId]
    )
    return { held: held.map((r) => r.row), expected: expected.map((r) => r.row) }
  })

const idsOf = (collection: Collection, workspaceId: string, query: DocumentQuery) =>
  Effect.map(
    Effect.flatMap(Storage, (s) => s.queryDocuments(collection, workspaceId, query)),
    (rows) => rows.map((r) => r.id)
  )

describe("the search words tables", () => {
  it.layer(layer, { timeout: 60_000 })((it) => {
    it.effect("follow creates, changed words, soft delete and restore, purge and rebuild", () =>
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = "ws_words"
        const follows = Effect.gen(function* () {
          const { expected, held } = yield* wordsTables(ws)
          expect(held).toEqual(expected)
          return held
        })
        const long = "q".repeat(250)
        yield* storage.commit({
          streams: [],
          documents: [
            upsert("contact", ws, "con_1", "Ann Lee"),
            upsert("contact", ws, "con_2", `Bob ${long}`),
            upsert("deal", ws, "deal_1", "Pilot")
          ]
        })
        expect(yield* follows).toEqual([
          "contact ann con_1",
          "contact bob con_2",
          "contact lee con_1",
          `contact ${"q".repeat(200)} con_2`,
          "deal pilot deal_1"
        ])
        expect(yield* idsOf("contact", ws, search([long]))).toEqual(["con_2"])
        expect(yield* idsOf("contact", ws, search([`${"q".repeat(200)}x`]))).toEqual([])

        // Changed words: the old ones leave, the kept and new ones are there once.
        yield* storage.commit({ streams: [], documents: [upsert("contact", ws, "con_1", "Anna Lee")] })
        expect(yield* follows).toContain("contact anna con_1")
        expect(yield* follows).not.toContain("contact ann con_1")
        expect(yield* idsOf("contact", ws, search(["ann", "le"]))).toEqual(["con_1"])

        // Soft delete and restore keep the words; the scope decides what a search sees.
        yield* storage.commit({ streams: [], documents: [upsert("contact", ws, "con_1", "Anna Lee", "2026-01-01T00:00:00.000Z")] })
        expect(yield* follows).toContain("contact anna con_1")
        expect(yield* idsOf("contact", ws, search(["anna"]))).toEqual([])
        expect(yield* idsOf("contact", ws, search(["anna"], "deleted"))).toEqual(["con_1"])
        yield* storage.commit({ streams: [], documents: [upsert("contact", ws, "con_1", "Anna Lee")] })
        expect(yield* idsOf("contact", ws, search(["anna"]))).toEqual(["con_1"])

        // Purge: a removed document's words go with it.
        yield* storage.commit({ streams: [], documents: [remove("contact", ws, "con_2")] })
        expect(yield* follows).toEqual(["contact anna con_1", "contact lee con_1", "deal pilot deal_1"])
        expect(yield* idsOf("contact", ws, search(["bob"]))).toEqual([])

        // Rebuild: the contacts' words are those of the new documents; the deals' stay.
        yield* storage.replaceDocuments(["contact"], [upsert("contact", ws, "con_3", "Zed"), upsert("contact", ws, "con_4", "Zoe Zed")])
        expect(yield* follows).toEqual(["contact zed con_3", "contact zed con_4", "contact zoe con_4", "deal pilot deal_1"])
        expect(yield* idsOf("contact", ws, search(["ann"]))).toEqual([])
        expect(yield* idsOf("contact", ws, search(["ze"]))).toEqual(["con_3", "con_4"])
        expect(yield* idsOf("deal", ws, search(["pil"]))).toEqual(["deal_1"])
      })
    )

    it.effect("find by range exactly the words a term begins, at the edges of code-point order", () =>
      Effect.gen(function* () {
        const storage = yield* Storage
        const ws = "ws_edges"
        // Each name is one word: U+D7FF and U+E000 surround the surrogates (the range's successor
        // of U+D7FF skips them), U+FFFF lies below the astral plane, U+10FFFF is the last code point.
        const names = [
          "a\uD7FF",
          "a\uE000",
          "a\uFFFF",
          "a\u{10000}",
          "a\u{10FFFF}",
          "a\u{10FFFF}b",
          "b",
          "a",
          "ab",
          "\u{10FFFF}",
          "\u{10FFFF}a"
        ]
        const documents = names.map((name, i) => upsert("contact", ws, `con_${String(i).padStart(2, "0")}`, name))
        yield* storage.commit({ streams: [], documents })
        const terms = ["a", "a\uD7FF", "a\uE000", "a\uFFFF", "a\u{10FFFF}", "\u{10FFFF}", "\u{10FFFF}a", "ab", "b", "a\u{10000}"]
        for (const term of terms) {
          const expected = documents.flatMap((d) => (d._tag === "Upsert" && d.searchWords.some((w) => w.startsWith(term)) ? [d.id] : []))
          expect({ term, ids: yield* idsOf("contact", ws, search([term])) }).toEqual({ term, ids: expected })
        }
      })
    )
  })
})
