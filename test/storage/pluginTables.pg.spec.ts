import {
  type Commit,
  type DocumentQuery,
  type DocumentUpsert,
  type Expr,
  type NewEvent,
  type PluginCollection,
  RecordTypes,
  searchWordsOf,
  UniqueViolation
} from "@dealstream/core"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Redacted, Result } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql/SqlClient"
import { paramsOf } from "../../packages/storage-pg/src/commit.js"
import { documentTableMap } from "../../packages/storage-pg/src/documentTableMap.js"
import { functions } from "../../packages/storage-pg/src/functions/index.js"
import { migrate, schemaOf } from "../../packages/storage-pg/src/migrate.js"
import * as PgStorage from "../../packages/storage-pg/src/PgStorage.js"
import { note } from "../plugins/note/note.js"
import { heardFirst } from "../support/feedHeard.js"
import { emptyDatabase, testDatabase } from "../support/pg.js"

/**
 * PostgreSQL storage given a record type plug-in (the test plug-in `note`, core's RecordTypes): it
 * migrates the plug-in's table and serves its collection through every path the built-in ones take,
 * on a database of each test's own (a rebuild truncates the whole table).
 */

const NOTE = note.name as PluginCollection
const TABLE = note.postgres.table

const client = (url: string) =>
  PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 2 }).pipe(Effect.provide(Reactivity.layer))

/** A storage serving the note plug-in on a fresh copy of the run's migrated template, and a client to look behind it. */
const noteStorage = (options: { readonly commitLanes?: number } = {}) =>
  Effect.gen(function* () {
    const url = yield* testDatabase
    const storage = yield* PgStorage.make({ url, ...options }).pipe(Effect.provideService(RecordTypes, [note]))
    return { storage, sql: yield* client(url) }
  })

let counter = 0
const fresh = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`

const created = (workspaceId: string, type = "note.created"): NewEvent => ({
  type,
  data: {},
  metadata: { workspaceId, eventId: fresh("evt"), requestId: null, actor: null }
})

interface NoteFields {
  readonly title: string
  readonly body?: string | null
  readonly slug?: string | null
  readonly created_at?: string
  readonly deletedAt?: string | null
  readonly version?: number
}

/** A note document as the engine writes it: its slug's key while live, its title's and body's words. */
const noteDocument = (workspaceId: string, id: string, fields: NoteFields): DocumentUpsert => {
  const at = fields.created_at ?? "2026-01-01T00:00:00.000Z"
  const data = { id, title: fields.title, body: fields.body ?? null, slug: fields.slug ?? null, created_at: at, updated_at: at }
  const deletedAt = fields.deletedAt ?? null
  return {
    _tag: "Upsert",
    collection: NOTE,
    workspaceId,
    id,
    version: fields.version ?? 1,
    deletedAt,
    uniqueKey: deletedAt === null && typeof data.slug === "string" ? data.slug.trim().toLowerCase() : null,
    searchWords: [...new Set([...searchWordsOf(data.title), ...(data.body === null ? [] : searchWordsOf(data.body))])],
    data
  }
}

/** A note's creation: its stream's first event and its document. */
const createNote = (workspaceId: string, id: string, fields: NoteFields): Commit => ({
  streams: [{ streamId: id, expectedVersion: 0, events: [created(workspaceId)] }],
  documents: [noteDocument(workspaceId, id, fields)]
})

const field = (name: string, type: "text" | "timestamp" = "text") => ({ name, type }) as const

const notesWhere = (where: Expr, sort: DocumentQuery["sort"] = { field: field("title"), direction: "asc" }): DocumentQuery => ({
  where,
  scope: "live",
  sort,
  after: null,
  limit: 100
})

const search = (...terms: ReadonlyArray<string>): Expr => ({
  _tag: "Search",
  fields: [field("title"), field("body")],
  wholeWordFields: [],
  terms
})

const idsOf = (documents: ReadonlyArray<{ readonly id: string }>) => documents.map((document) => document.id)

/** The defect an effect dies with, as its message; null when it does not die. */
const defectOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => (Exit.isFailure(exit) && Cause.hasDies(exit.cause) ? String(Cause.squash(exit.cause)) : null))

const tableExists = (sql: SqlClient, table: string) =>
  Effect.map(sql.unsafe<{ readonly found: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS found`, [table]), ([row]) => row!.found)

describe("migrate with a record type plug-in", () => {
  it.live("creates the plug-in's table, records its migration once, and rewrites only the functions it concerns", () =>
    Effect.gen(function* () {
      const sql = yield* client(yield* testDatabase)
      const withNote = schemaOf(documentTableMap([note]))
      expect(yield* tableExists(sql, TABLE)).toBe(false)

      const first = yield* migrate(sql, withNote)
      expect(first.migrations).toEqual([])
      expect(first.pluginMigrations).toEqual([{ plugin: "note", id: 1 }])
      // The commit functions now write its table, the feed trigger tells of its events; the rest is as it was.
      expect([...first.functions].sort()).toEqual(["ds_commit", "ds_commit_set", "ds_events_notify_feed"])
      expect(yield* tableExists(sql, TABLE)).toBe(true)

      expect(yield* migrate(sql, withNote)).toEqual({ migrations: [], functions: [], pluginMigrations: [] })
      const recorded = yield* sql.unsafe<{ readonly plugin: string; readonly id: number; readonly name: string }>(
        `SELECT plugin, id, name FROM ds_plugin_migrations`
      )
      expect(recorded).toEqual([{ plugin: "note", id: 1, name: "notes table" }])
    }).pipe(Effect.scoped)
  )

  it.live("on an empty database: the engine's migrations, then the plug-in's, then functions that write its table", () =>
    Effect.gen(function* () {
      const sql = yield* client(yield* emptyDatabase)
      const migrated = yield* migrate(sql, schemaOf(documentTableMap([note])))
      expect(migrated.pluginMigrations).toEqual([{ plugin: "note", id: 1 }])
      const [commit] = yield* sql.unsafe<{ readonly definition: string }>(`SELECT pg_get_functiondef('ds_commit'::regproc) AS definition`)
      expect(commit!.definition).toContain(`WHEN 'note' THEN`)
      expect(commit!.definition).toContain(`INSERT INTO ${TABLE}`)
    }).pipe(Effect.scoped)
  )

  it.live("without plug-ins, the functions are the built-in texts: a database migrated by them applies nothing", () =>
    Effect.gen(function* () {
      const sql = yield* client(yield* testDatabase)
      expect(schemaOf(documentTableMap([])).functions).toEqual(functions)
      expect(yield* migrate(sql, schemaOf(documentTableMap([])))).toEqual({ migrations: [], functions: [] })
    }).pipe(Effect.scoped)
  )

  it.live("documentTableSql makes a table like the built-in record types' (ds_companies')", () =>
    Effect.gen(function* () {
      const sql = yield* client(yield* testDatabase)
      yield* migrate(sql, schemaOf(documentTableMap([note])))
      const shapeOf = (table: string) =>
        Effect.gen(function* () {
          const columns = yield* sql.unsafe<{ readonly line: string }>(
            `SELECT format('%s %s %s collate %s default %s', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
              a.attcollation::regcollation, pg_get_expr(d.adbin, d.adrelid)) AS line
            FROM pg_attribute AS a LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
            [table]
          )
          const indexes = yield* sql.unsafe<{ readonly line: string }>(
            `SELECT replace(pg_get_indexdef(i.indexrelid), $2, 'TABLE') AS line FROM pg_index AS i
            WHERE i.indrelid = $1::regclass ORDER BY 1`,
            [table, table]
          )
          return { columns: columns.map((row) => row.line), indexes: indexes.map((row) => row.line) }
        })
      const notes = yield* shapeOf(TABLE)
      const companies = yield* shapeOf("ds_companies")
      expect(notes.columns).toEqual(companies.columns)
      const standard = ["pkey", "deleted", "unique_key", "created_at", "updated_at"].map((suffix) => `TABLE_${suffix} `)
      const standardOf = (indexes: ReadonlyArray<string>) => indexes.filter((line) => standard.some((name) => line.includes(name)))
      expect(standardOf(notes.indexes)).toHaveLength(standard.length)
      expect(standardOf(notes.indexes)).toEqual(standardOf(companies.indexes))
    }).pipe(Effect.scoped)
  )

  it.live("a plug-in the storage cannot serve is a defect, said before it connects", () =>
    Effect.gen(function* () {
      const taken = { ...note, postgres: { ...note.postgres, table: "ds_contacts" } }
      const defect = yield* defectOf(
        Effect.scoped(PgStorage.make("postgres://nobody@127.0.0.1:1/none").pipe(Effect.provideService(RecordTypes, [taken])))
      )
      expect(defect).toContain(`"note"`)
      expect(defect).toContain("ds_contacts")
    })
  )
})

describe("PgStorage serving a record type plug-in", () => {
  it.live("commits a note and its event, and reads it back by id, key, filter, sort and search", () =>
    Effect.gen(function* () {
      const { storage } = yield* noteStorage()
      const ws = fresh("ws")
      const [groceries, garden, recipe] = [fresh("note"), fresh("note"), fresh("note")]
      const committed = yield* storage.commit(createNote(ws, groceries, { title: "Groceries", body: "Milk and bread", slug: "Shop" }))
      expect(committed.events.map((event) => event.type)).toEqual(["note.created"])
      yield* storage.commit(createNote(ws, garden, { title: "Garden plan", body: "Tomatoes, Zoë's basil" }))
      yield* storage.commit(createNote(ws, recipe, { title: "Bread recipe", body: null, slug: "bread" }))

      expect((yield* storage.readStream(groceries)).map((event) => event.type)).toEqual(["note.created"])
      const read = yield* storage.getDocument(NOTE, ws, groceries)
      expect(read).toEqual({
        collection: NOTE,
        workspaceId: ws,
        id: groceries,
        version: 1,
        deletedAt: null,
        data: noteDocument(ws, groceries, { title: "Groceries", body: "Milk and bread", slug: "Shop" }).data
      })
      expect(yield* storage.getDocument(NOTE, fresh("ws"), groceries)).toBeNull()
      expect(idsOf(yield* storage.getDocuments(NOTE, ws, [recipe, groceries, fresh("note")])).sort()).toEqual([groceries, recipe].sort())
      expect((yield* storage.documentByUniqueKey(NOTE, ws, "shop"))?.id).toBe(groceries)
      expect((yield* storage.readRecord(NOTE, ws, garden, null)).document?.id).toBe(garden)

      const query = (where: Expr, sort?: DocumentQuery["sort"]) =>
        Effect.map(storage.queryDocuments(NOTE, ws, notesWhere(where, sort)), idsOf)
      expect(yield* query({ _tag: "True" })).toEqual([recipe, garden, groceries])
      expect(yield* query({ _tag: "True" }, { field: field("title"), direction: "desc" })).toEqual([groceries, garden, recipe])
      expect(yield* query({ _tag: "Compare", field: field("slug"), op: "eq", value: "bread" })).toEqual([recipe])
      expect(yield* query({ _tag: "StartsWith", field: field("title"), value: "gar" })).toEqual([garden])
      expect(yield* query({ _tag: "Exists", field: field("slug") })).toEqual([recipe, groceries])
      // A page after the first note, by the default list order.
      const byCreated = { field: field("created_at", "timestamp"), direction: "asc" } as const
      const first = yield* storage.queryDocuments(NOTE, ws, { ...notesWhere({ _tag: "True" }, byCreated), limit: 1 })
      const rest = yield* storage.queryDocuments(NOTE, ws, {
        ...notesWhere({ _tag: "True" }, byCreated),
        after: { value: "2026-01-01T00:00:00.000Z", id: first[0]!.id }
      })
      expect([...idsOf(first), ...idsOf(rest)]).toEqual([groceries, garden, recipe].sort())

      // Search, from each note's search_words (a plug-in has no words table): every term a prefix of a word.
      expect(yield* query(search("bread"))).toEqual([recipe, groceries])
      expect(yield* query(search("bre", "rec"))).toEqual([recipe])
      expect(yield* query(search("zo"))).toEqual([garden])
      expect(yield* query(search("zoë"))).toEqual([garden])
      expect(yield* query(search("read"))).toEqual([])
      expect(yield* query({ _tag: "And", exprs: [search("bread"), { _tag: "Exists", field: field("body") }] })).toEqual([groceries])
      expect(yield* query({ _tag: "Not", expr: search("bread") })).toEqual([garden])
    }).pipe(Effect.scoped)
  )

  it.live("refuses a slug another live note of the workspace holds, whichever commit path writes it", () =>
    Effect.gen(function* () {
      const { storage } = yield* noteStorage({ commitLanes: 1 })
      const ws = fresh("ws")
      const holder = fresh("note")
      yield* storage.commit(createNote(ws, holder, { title: "First", slug: "Same" }))
      const second = fresh("note")
      const refused = yield* Effect.flip(storage.commit(createNote(ws, second, { title: "Second", slug: " same " })))
      expect(refused).toBeInstanceOf(UniqueViolation)
      expect(refused).toMatchObject({ collection: NOTE, uniqueKey: "same", existingId: holder })
      expect(yield* storage.getDocument(NOTE, ws, second)).toBeNull()
      // Another workspace's notes take part in no uniqueness of this one.
      yield* storage.commit(createNote(fresh("ws"), fresh("note"), { title: "Elsewhere", slug: "same" }))

      // Commits arriving together (one lane: the first goes alone, the others gather behind it into
      // one ds_commit_batch): of eight claiming one slug, one wins and the others are told who.
      const racers = Array.from({ length: 8 }, () => fresh("note"))
      const results = yield* Effect.forEach(
        racers,
        (id) => Effect.result(storage.commit(createNote(ws, id, { title: id, slug: "raced" }))),
        {
          concurrency: "unbounded"
        }
      )
      const winner = racers.filter((_, i) => Result.isSuccess(results[i]!))
      expect(winner).toHaveLength(1)
      for (const lost of results.filter(Result.isFailure)) {
        expect(lost.failure).toBeInstanceOf(UniqueViolation)
        expect(lost.failure).toMatchObject({ collection: NOTE, uniqueKey: "raced", existingId: winner[0] })
      }
    }).pipe(Effect.scoped)
  )

  it.live("lists a soft-deleted note for the purge, and shows it in the deleted scope only", () =>
    Effect.gen(function* () {
      const { storage } = yield* noteStorage()
      const ws = fresh("ws")
      const [gone, kept] = [fresh("note"), fresh("note")]
      yield* storage.commit(createNote(ws, gone, { title: "Old", slug: "old" }))
      yield* storage.commit(createNote(ws, kept, { title: "Kept" }))
      yield* storage.commit({
        streams: [{ streamId: gone, expectedVersion: 1, events: [created(ws, "note.deleted")] }],
        documents: [noteDocument(ws, gone, { title: "Old", slug: "old", deletedAt: "2026-02-01T00:00:00.000Z", version: 2 })]
      })
      expect(yield* storage.listDeletedBefore(NOTE, "2026-02-01T00:00:00.000Z", 10)).toEqual([{ workspaceId: ws, id: gone }])
      expect(yield* storage.listDeletedBefore(NOTE, "2026-01-31T23:59:59.999Z", 10)).toEqual([])
      expect(idsOf(yield* storage.queryDocuments(NOTE, ws, { ...notesWhere({ _tag: "True" }), scope: "deleted" }))).toEqual([gone])
      expect(idsOf(yield* storage.queryDocuments(NOTE, ws, notesWhere({ _tag: "True" })))).toEqual([kept])
      // Its slug is free again.
      yield* storage.commit(createNote(ws, fresh("note"), { title: "New", slug: "old" }))
    }).pipe(Effect.scoped)
  )

  it.live("a rebuild empties the notes' table and fills it again", () =>
    Effect.gen(function* () {
      const { storage } = yield* noteStorage()
      const ws = fresh("ws")
      const [before, after] = [fresh("note"), fresh("note")]
      yield* storage.commit(createNote(ws, before, { title: "Before", slug: "key" }))
      yield* storage.replaceDocuments([NOTE], [noteDocument(ws, after, { title: "After", slug: "key" })])
      expect(yield* storage.getDocument(NOTE, ws, before)).toBeNull()
      expect((yield* storage.getDocument(NOTE, ws, after))?.data["title"]).toBe("After")
      expect((yield* storage.documentByUniqueKey(NOTE, ws, "key"))?.id).toBe(after)
    }).pipe(Effect.scoped)
  )

  it.live("the set-wise group commit (ds_commit_set) writes notes", () =>
    Effect.gen(function* () {
      const { sql, storage } = yield* noteStorage()
      const ws = fresh("ws")
      const [a, b] = [fresh("note"), fresh("note")]
      const items = [createNote(ws, a, { title: "A", slug: "a" }), createNote(ws, b, { title: "B" })].map((commit) =>
        paramsOf(commit, "2026-03-01T00:00:00.000Z")
      )
      const [row] = yield* sql.unsafe<{ readonly outcomes: ReadonlyArray<unknown> | null }>(`SELECT ds_commit_set($1::jsonb) AS outcomes`, [
        JSON.stringify(items)
      ])
      // Not null: the set path took the batch rather than leaving it to the commits one by one.
      expect(row!.outcomes).toHaveLength(2)
      expect(idsOf(yield* storage.getDocuments(NOTE, ws, [a, b])).sort()).toEqual([a, b].sort())
      expect((yield* storage.documentByUniqueKey(NOTE, ws, "a"))?.id).toBe(a)
    }).pipe(Effect.scoped)
  )

  it.live("tells the feed's listeners of a commit of note events", () =>
    Effect.gen(function* () {
      const { storage } = yield* noteStorage()
      yield* heardFirst(storage, { told: "note.created", untold: "delivery.scheduled" })
    }).pipe(Effect.scoped)
  )

  it.live("a collection that is neither built in nor a plug-in's is a defect, and nothing is written", () =>
    Effect.gen(function* () {
      const { storage } = yield* noteStorage()
      const ws = fresh("ws")
      const unknown = "memo" as PluginCollection
      expect(yield* defectOf(storage.getDocument(unknown, ws, "x"))).toContain(`"memo"`)
      expect(yield* defectOf(storage.queryDocuments(unknown, ws, notesWhere({ _tag: "True" })))).toContain(`"memo"`)
      expect(yield* defectOf(storage.listDeletedBefore(unknown, "2026-01-01T00:00:00.000Z", 1))).toContain(`"memo"`)
      const id = fresh("note")
      const commit = createNote(ws, id, { title: "T" })
      const mixed = { ...commit, documents: [...commit.documents, { ...noteDocument(ws, id, { title: "T" }), collection: unknown }] }
      expect(yield* defectOf(storage.commit(mixed))).toContain(`"memo"`)
      expect(yield* storage.readStream(id)).toEqual([])
      expect(
        yield* defectOf(storage.replaceDocuments([NOTE], [{ ...noteDocument(ws, id, { title: "T" }), collection: unknown }]))
      ).toContain(`"memo"`)
    }).pipe(Effect.scoped)
  )
})
