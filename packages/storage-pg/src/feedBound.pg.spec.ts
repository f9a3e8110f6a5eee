import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { testSqlLayer } from "../../../test/support/pg.js"
import { boundOverGiven, type MarkHolder, sameHolder } from "./feedBound.js"

/** The planted bug: the match before 2026-11-30, by the virtual transaction alone. */
const sameVirtualTransaction: MarkHolder = (own, mark) => `${mark}.virtualtransaction = ${own}.virtualtransaction`

/** A row of pg_locks as the bound reads it: a transaction id's lock, or a feed mark. */
interface LockRow {
  readonly locktype: "transactionid" | "advisory"
  readonly pid: number | null
  readonly virtualtransaction: string
  readonly transactionid?: string
}

const idLock = (pid: number | null, virtualtransaction: string, transactionid: string): LockRow => ({
  locktype: "transactionid",
  pid,
  virtualtransaction,
  transactionid
})
const mark = (pid: number | null, virtualtransaction: string): LockRow => ({ locktype: "advisory", pid, virtualtransaction })

/** The bound over a snapshot and a lock table given here, with the rule's own SQL (boundOverGiven). */
const boundOf = (snapshot: string, locks: ReadonlyArray<LockRow>, holder: MarkHolder = sameHolder) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    const [row] = yield* sql.unsafe<{ readonly below: string; readonly ended: boolean }>(boundOverGiven(holder), [
      snapshot,
      JSON.stringify(locks)
    ])
    return row!
  })

describe("the feed bound over a lock table", () => {
  it.layer(testSqlLayer)((it) => {
    // What a read saw on 2026-11-30 in the feed property under load, when it passed a commit: the
    // snapshot lists 64888 as running; during the lock read, 64888's backend (process entry 20) left
    // the running set and cleared its local id, so its id lock shows 20/0 and its mark, read just
    // before, 20/5454. The commit then made its three events visible below the reader's cursor.
    const passedCommit = [
      mark(4_020, "20/5454"),
      idLock(4_016, "16/5698", "64893"),
      idLock(4_020, "20/0", "64888"),
      idLock(4_016, "16/5698", "64892")
    ]

    it.effect("stops at a commit whose backend holds the mark while its virtual id changes", () =>
      Effect.gen(function* () {
        expect(yield* boundOf("64888:64892:64888", passedCommit)).toEqual({ below: "64888", ended: false })
      })
    )

    it.effect("the planted bug: matched by virtual transaction alone, the bound passes that commit", () =>
      Effect.gen(function* () {
        expect(yield* boundOf("64888:64892:64888", passedCommit, sameVirtualTransaction)).toEqual({ below: "64892", ended: false })
      })
    )

    it.effect("passes a running transaction without the mark, and stops at the first that has it", () =>
      Effect.gen(function* () {
        const locks = [idLock(1, "3/7", "100"), idLock(2, "4/9", "102"), mark(2, "4/9"), mark(5, "6/1")]
        expect(yield* boundOf("100:105:100,102", locks)).toEqual({ below: "102", ended: false })
      })
    )

    it.effect("does not take another backend's mark for a running transaction's", () =>
      Effect.gen(function* () {
        expect(yield* boundOf("100:105:100", [idLock(1, "3/7", "100"), mark(2, "4/7")])).toEqual({
          below: "105",
          ended: false
        })
      })
    )

    it.effect("stops at a transaction that ended after the snapshot, and says so", () =>
      Effect.gen(function* () {
        expect(yield* boundOf("100:105:100,103", [mark(1, "3/0"), idLock(2, "4/9", "103")])).toEqual({ below: "100", ended: true })
      })
    )

    it.effect("matches a holder without a backend (a prepared transaction) by its virtual transaction", () =>
      Effect.gen(function* () {
        expect(yield* boundOf("100:105:100", [idLock(null, "-1/100", "100"), mark(null, "-1/100")])).toEqual({
          below: "100",
          ended: false
        })
      })
    )

    it.effect("reads up to the snapshot's xmax when nothing runs", () =>
      Effect.gen(function* () {
        expect(yield* boundOf("105:105:", [])).toEqual({ below: "105", ended: false })
      })
    )
  })
})
