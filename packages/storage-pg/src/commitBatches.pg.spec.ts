import { type Commit, type NewEvent, UniqueViolation, VersionConflict } from "@dealstream/core"
import { storageContractSuite } from "@dealstream/core/testing"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Result } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { testDatabase } from "../../../test/support/pg.js"
import { makeCommitBatches } from "./commitBatches.js"
import { builtInTables } from "./documentTableMap.js"
import { migrate } from "./migrate.js"
import * as PgStorage from "./PgStorage.js"

// One lane: every commit that arrives while a batch runs waits for the next one, so the contract's
// concurrent cases run through ds_commit_batch rather than single calls.
storageContractSuite("postgres, one commit lane", Layer.unwrap(Effect.map(testDatabase, (url) => PgStorage.layer({ url, commitLanes: 1 }))))

const ws = "ws_batch"
const event = (streamId: string, n: number): NewEvent => ({
  type: "contact.created",
  data: { n },
  metadata: { workspaceId: ws, eventId: `evt_${streamId}_${n}`, requestId: null, actor: null }
})

const createWithKey = (id: string, key: string | null): Commit => ({
  streams: [{ streamId: id, expectedVersion: 0, events: [event(id, 1)] }],
  documents: [
    {
      _tag: "Upsert",
      collection: "contact",
      workspaceId: ws,
      id,
      version: 1,
      deletedAt: null,
      uniqueKey: key,
      searchWords: [],
      data: { id }
    }
  ]
})

describe("group commit", () => {
  it.effect("commits that arrive together share statements, and each fails or succeeds on its own", () =>
    Effect.gen(function* () {
      const url = yield* testDatabase
      const sql = yield* PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 4 }).pipe(
        Effect.provide(Reactivity.layer)
      )
      yield* migrate(sql)
      const batches = yield* makeCommitBatches(sql, { lanes: 1, maxBatch: 64 })
      const storage = PgStorage.fromClient(sql, batches.submit, { url, connectTimeout: "5 seconds", heartbeat: "5 seconds" }, builtInTables)

      // 30 plain creations, 10 streams created twice (one of each pair wins), 10 creations over
      // 5 unique keys (one of each pair wins), all at once.
      const commits: Array<{ readonly commit: Commit; readonly kind: "plain" | "stream" | "key"; readonly group: string }> = []
      for (let i = 0; i < 30; i++) commits.push({ commit: createWithKey(`con_plain_${i}`, null), kind: "plain", group: `p${i}` })
      for (let i = 0; i < 10; i++) {
        for (let j = 0; j < 2; j++) commits.push({ commit: createWithKey(`con_twice_${i}`, null), kind: "stream", group: `s${i}` })
      }
      for (let i = 0; i < 5; i++) {
        for (let j = 0; j < 2; j++) {
          commits.push({ commit: createWithKey(`con_key_${i}_${j}`, `key_${i}@x.io`), kind: "key", group: `k${i}` })
        }
      }
      const results = yield* Effect.forEach(commits, ({ commit }) => Effect.result(storage.commit(commit)), {
        concurrency: "unbounded"
      })

      const byGroup = new Map<string, Array<(typeof results)[number]>>()
      commits.forEach(({ group }, i) => {
        byGroup.set(group, [...(byGroup.get(group) ?? []), results[i]!])
      })
      for (const [group, outcomes] of byGroup) {
        const won = outcomes.filter(Result.isSuccess)
        expect(won, group).toHaveLength(1)
        for (const lost of outcomes.filter(Result.isFailure)) {
          if (group.startsWith("s")) expect(lost.failure).toBeInstanceOf(VersionConflict)
          else expect(lost.failure).toBeInstanceOf(UniqueViolation)
        }
      }
      // What each winner was told is what the log holds: no losing commit left a trace.
      const log = yield* storage.readLog({ after: 0, limit: 1_000 })
      expect(log).toHaveLength(30 + 10 + 5)
      const told = results.flatMap((r) => (Result.isSuccess(r) ? r.success.events.map((e) => e.sequence) : []))
      expect(new Set(told)).toEqual(new Set(log.map((e) => e.sequence)))

      const { commits: carried, statements } = batches.sent()
      expect(carried).toBeGreaterThanOrEqual(commits.length)
      // Grouped: far fewer statements than commits (the first goes alone, the rest gather behind it).
      expect(statements).toBeLessThan(commits.length / 2)
    })
  )
})
