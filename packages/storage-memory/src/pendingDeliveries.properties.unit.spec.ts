import { prop } from "@dealstream/core/testing"
import { expect } from "@effect/vitest"
import * as fc from "fast-check"
import { dueOf, PendingDeliveries } from "./pendingDeliveries.js"

/*
 * The due-ordered queue against the scan it replaced: claim takes the due, pending deliveries that
 * hold no running lease, earliest due first (ties: by sequence, known ones first, then by slot), at
 * most limit, at most perWebhook of one webhook and none of skipWebhooks; nextDue is the least of
 * each pending delivery's due time or, if later, its lease's end; a write or removal ends a lease.
 */

interface Row {
  readonly data: { readonly [key: string]: unknown }
}

const time = fc.integer({ min: 0, max: 9 }).map((n) => `2030-01-01T00:00:0${n}.000Z`)
const slot = fc.constantFrom("d1", "d2", "d3", "d4", "d5", "d6")
const webhook = fc.constantFrom("w1", "w2", "w3")
const data = fc.record(
  {
    status: fc.constantFrom("pending", "pending", "succeeded", "cancelled"),
    next_attempt_at: fc.oneof(time, fc.constant(null)),
    webhook_id: webhook,
    sequence: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined })
  },
  { requiredKeys: ["status", "next_attempt_at", "webhook_id"] }
)

type Op =
  | { readonly _tag: "Write"; readonly slot: string; readonly row: Row | undefined }
  | {
      readonly _tag: "Claim"
      readonly now: string
      readonly leaseUntil: string
      readonly limit: number
      readonly owner: string
      readonly perWebhook?: number
      readonly skipWebhooks?: ReadonlyArray<string>
    }
  | { readonly _tag: "Release"; readonly owner: string }
  | { readonly _tag: "NextDue" }

const owner = fc.constantFrom("a", "b")
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({
        slot,
        row: fc.option(
          data.map((data) => ({ data })),
          { nil: undefined }
        )
      })
      .map((w) => ({ _tag: "Write" as const, ...w }))
  },
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          now: time,
          leaseUntil: time,
          limit: fc.constantFrom(0, 1, 2, 10, 1.5),
          owner,
          perWebhook: fc.constantFrom(1, 2),
          skipWebhooks: fc.subarray(["w1", "w2", "w3"])
        },
        { requiredKeys: ["now", "leaseUntil", "limit", "owner"] }
      )
      .map((c) => ({ _tag: "Claim" as const, ...c }))
  },
  { weight: 1, arbitrary: owner.map((owner) => ({ _tag: "Release" as const, owner })) },
  { weight: 2, arbitrary: fc.constant({ _tag: "NextDue" as const }) }
)

prop(
  "pending deliveries claim and report the next due time as a scan of every pending delivery would",
  [fc.array(op, { maxLength: 60, size: "max" })],
  ([ops]) => {
    const queue = new PendingDeliveries<Row>()
    const rows = new Map<string, Row>()
    const leases = new Map<string, { readonly owner: string; readonly until: string }>()
    const pending = () =>
      [...rows]
        .flatMap(([slot, row]) => {
          const due = dueOf(row.data)
          return due === null ? [] : [{ slot, row, due }]
        })
        .sort((a, b) => {
          if (a.due !== b.due) return a.due < b.due ? -1 : 1
          const [x, y] = [a.row.data["sequence"], b.row.data["sequence"]] as Array<number | undefined>
          if (x !== y) return x === undefined ? 1 : y === undefined ? -1 : x - y
          return a.slot < b.slot ? -1 : 1
        })
    for (const op of ops) {
      switch (op._tag) {
        case "Write":
          queue.update(op.slot, rows.get(op.slot), op.row)
          if (op.row === undefined) rows.delete(op.slot)
          else rows.set(op.slot, op.row)
          leases.delete(op.slot)
          break
        case "Claim": {
          const perWebhook = new Map<unknown, number>()
          const claimed = pending()
            .filter(({ due, slot }) => due <= op.now && !((leases.get(slot)?.until ?? "") >= op.now))
            .filter(({ row }) => !(op.skipWebhooks ?? []).includes(row.data["webhook_id"] as string))
            .filter(({ row }) => {
              const n = (perWebhook.get(row.data["webhook_id"]) ?? 0) + 1
              perWebhook.set(row.data["webhook_id"], n)
              return n <= (op.perWebhook ?? Infinity)
            })
            .slice(0, Math.max(0, Math.floor(op.limit)))
          for (const { slot } of claimed) leases.set(slot, { owner: op.owner, until: op.leaseUntil })
          expect(queue.claim(op)).toEqual(claimed.map(({ row }) => row))
          break
        }
        case "Release":
          queue.release(op.owner)
          for (const [slot, lease] of leases) if (lease.owner === op.owner) leases.delete(slot)
          break
        case "NextDue": {
          const times = pending()
            .map(({ due, slot }) => {
              const until = leases.get(slot)?.until
              return until !== undefined && until > due ? until : due
            })
            .sort()
          expect(queue.nextDue()).toBe(times[0] ?? null)
        }
      }
    }
  },
  { fastCheck: { numRuns: 300 } }
)
