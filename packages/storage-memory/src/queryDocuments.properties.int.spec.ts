import { type Collection, compareText, type DocumentWrite, runQuery, type StoredDocument } from "@dealstream/core"
import { prop } from "@dealstream/core/testing"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { MemoryStorage } from "./index.js"
import { deletedAt, deletedAts, documentData, id, queryCase, queryOf } from "./testing/queryArbitraries.js"

/*
 * The memory storage against a model (a map of the documents its writes leave): queryDocuments
 * answers what runQuery answers over the model's documents of that collection and workspace, and
 * listDeletedBefore what PostgreSQL's query would (oldest deletion first, then workspace, then id),
 * through commits in two workspaces and two collections, removals and rebuilds.
 */

const workspaces = ["ws1", "ws2"] as const
const collections: ReadonlyArray<Collection> = ["contact", "deal"]
const workspace = fc.constantFrom(...workspaces)
const collection = fc.constantFrom(...collections)

const write: fc.Arbitrary<DocumentWrite> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ collection, workspaceId: workspace, id, version: fc.integer({ min: 1, max: 9 }), deletedAt, data: documentData })
      .map((w): DocumentWrite => ({ _tag: "Upsert", ...w, uniqueKey: null, searchWords: [] }))
  },
  { weight: 1, arbitrary: fc.record({ collection, workspaceId: workspace, id }).map((w): DocumentWrite => ({ _tag: "Remove", ...w })) }
)

type Op =
  | { readonly _tag: "Commit"; readonly writes: ReadonlyArray<DocumentWrite> }
  | { readonly _tag: "Replace"; readonly collections: ReadonlyArray<Collection>; readonly writes: ReadonlyArray<DocumentWrite> }
  | { readonly _tag: "Query"; readonly collection: Collection; readonly workspaceId: string; readonly which: number }
  | { readonly _tag: "Trash"; readonly collection: Collection; readonly cutoff: string; readonly limit: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.array(write, { minLength: 1, maxLength: 3 }).map((writes) => ({ _tag: "Commit" as const, writes })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ collections: fc.subarray([...collections]), writes: fc.array(write, { maxLength: 8 }) })
      .map((r) => ({ _tag: "Replace" as const, ...r }))
  },
  {
    weight: 4,
    arbitrary: fc.record({ collection, workspaceId: workspace, which: fc.nat() }).map((r) => ({ _tag: "Query" as const, ...r }))
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        collection,
        cutoff: fc.constantFrom(...deletedAts, "2026-01-15T00:00:00.000Z", "2025-01-01T00:00:00.000Z"),
        limit: fc.constantFrom(0, 1, 2, 100)
      })
      .map((r) => ({ _tag: "Trash" as const, ...r }))
  }
)

const slot = (doc: { readonly collection: Collection; readonly workspaceId: string; readonly id: string }) =>
  `${doc.collection}/${doc.workspaceId}/${doc.id}`

const apply = (model: Map<string, StoredDocument>, writes: ReadonlyArray<DocumentWrite>) => {
  for (const w of writes) {
    if (w._tag === "Remove") model.delete(slot(w))
    else
      model.set(slot(w), {
        collection: w.collection,
        workspaceId: w.workspaceId,
        id: w.id,
        version: w.version,
        deletedAt: w.deletedAt,
        data: w.data
      })
  }
}

prop(
  "memory storage's queries and trash agree with the model of its writes",
  [fc.array(queryCase, { minLength: 1, maxLength: 3 }), fc.array(op, { maxLength: 80, size: "max" })],
  ([queries, ops]) => {
    const storage = Effect.runSync(MemoryStorage.make)
    const model = new Map<string, StoredDocument>()
    for (const op of ops) {
      switch (op._tag) {
        case "Commit":
          Effect.runSync(storage.commit({ streams: [], documents: op.writes }))
          apply(model, op.writes)
          break
        case "Replace":
          Effect.runSync(storage.replaceDocuments(op.collections, op.writes))
          for (const [key, doc] of model) if (op.collections.includes(doc.collection)) model.delete(key)
          apply(model, op.writes)
          break
        case "Query": {
          const docs = [...model.values()].filter((d) => d.collection === op.collection && d.workspaceId === op.workspaceId)
          const query = queryOf(queries[op.which % queries.length]!, docs)
          expect(Effect.runSync(storage.queryDocuments(op.collection, op.workspaceId, query))).toEqual(runQuery(docs, query))
          break
        }
        case "Trash": {
          const expired = [...model.values()]
            .filter((d) => d.collection === op.collection && d.deletedAt !== null && d.deletedAt <= op.cutoff)
            .sort((a, b) => compareText(a.deletedAt!, b.deletedAt!) || compareText(a.workspaceId, b.workspaceId) || compareText(a.id, b.id))
            .slice(0, op.limit)
            .map((d) => ({ workspaceId: d.workspaceId, id: d.id }))
          expect(Effect.runSync(storage.listDeletedBefore(op.collection, op.cutoff, op.limit))).toEqual(expired)
        }
      }
    }
  },
  { fastCheck: { numRuns: 200 } }
)
