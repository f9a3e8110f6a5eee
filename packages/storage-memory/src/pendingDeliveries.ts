import type { ClaimOptions } from "@dealstream/core"
import { SortedList } from "./sortedList.js"

interface Lease {
  readonly owner: string
  readonly until: string
}

interface Pending<Row> {
  /** The delivery's next_attempt_at. */
  readonly due: string
  /** Its event's position when the delivery knows it (recovery, replay); ties of `due` go by it. */
  readonly sequence: number | null
  /** Its document slot, which the leases are keyed by. */
  readonly slot: string
  readonly row: Row
}

/** Earliest due first; then by sequence, known before unknown (PostgreSQL's NULLS LAST); then by slot. */
const byDue = <Row>(a: Pending<Row>, b: Pending<Row>): number => {
  if (a.due !== b.due) return a.due < b.due ? -1 : 1
  if (a.sequence !== b.sequence) {
    if (a.sequence === null) return 1
    if (b.sequence === null) return -1
    return a.sequence - b.sequence
  }
  return a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0
}

/** The event's position a delivery's data knows, or null. */
export const sequenceOf = (data: { readonly [key: string]: unknown }): number | null => {
  const sequence = data["sequence"]
  return typeof sequence === "number" ? sequence : null
}

/** The next attempt time of a pending delivery's data, null for any other document. */
export const dueOf = (data: { readonly [key: string]: unknown }): string | null => {
  const at = data["next_attempt_at"]
  return data["status"] === "pending" && typeof at === "string" ? at : null
}

/**
 * The pending deliveries with a next attempt time, in due order, and their leases: a claim walks
 * from the earliest due and stops at the first not yet due, so it reads the due and the leased
 * rows, never the whole queue.
 */
export class PendingDeliveries<Row extends { readonly data: { readonly [key: string]: unknown } }> {
  private pending = new SortedList<Pending<Row>>(byDue)
  private readonly leases = new Map<string, Lease>()

  /** A delivery was written (or removed: `next` undefined): every write of it ends its lease. */
  update(slot: string, previous: Row | undefined, next: Row | undefined): void {
    const was = previous === undefined ? null : dueOf(previous.data)
    if (was !== null) this.pending.remove({ due: was, sequence: sequenceOf(previous!.data), slot, row: previous! })
    this.leases.delete(slot)
    const is = next === undefined ? null : dueOf(next.data)
    if (is !== null) this.pending.insert({ due: is, sequence: sequenceOf(next!.data), slot, row: next! })
  }

  /** Every pending delivery with its row, and the leases, as plain data (MemoryStorage's `contents`). */
  contents(): { readonly pending: ReadonlyArray<Pending<Row>>; readonly leases: ReadonlyArray<readonly [string, Lease]> } {
    return { pending: [...this.pending.ascending(() => true)], leases: [...this.leases] }
  }

  /** Forgets every delivery (a rebuild replacing the collection). */
  clear(): void {
    this.pending = new SortedList(byDue)
    this.leases.clear()
  }

  claim({ leaseUntil, limit, now, owner, perWebhook, skipWebhooks = [] }: ClaimOptions): ReadonlyArray<Row> {
    const wanted = Math.max(0, Math.floor(limit))
    const claimed: Array<Row> = []
    if (wanted === 0) return claimed
    const perWebhookLimit = perWebhook === undefined ? Infinity : Math.max(0, Math.floor(perWebhook))
    const taken = new Map<unknown, number>()
    for (const { due, row, slot } of this.pending.ascending(() => true)) {
      if (due > now) break
      const lease = this.leases.get(slot)
      if (lease !== undefined && lease.until >= now) continue
      const webhookId = row.data["webhook_id"]
      if (typeof webhookId === "string" && skipWebhooks.includes(webhookId)) continue
      const already = taken.get(webhookId) ?? 0
      if (already >= perWebhookLimit) continue
      taken.set(webhookId, already + 1)
      this.leases.set(slot, { owner, until: leaseUntil })
      claimed.push(row)
      if (claimed.length === wanted) break
    }
    return claimed
  }

  release(owner: string): void {
    for (const [slot, lease] of this.leases) if (lease.owner === owner) this.leases.delete(slot)
  }

  /**
   * When the next pending delivery becomes claimable: its due time, or its lease's end if later.
   * Rows after the best found so far are due no sooner, so the walk stops there.
   */
  nextDue(): string | null {
    let earliest: string | null = null
    for (const { due, slot } of this.pending.ascending(() => true)) {
      if (earliest !== null && due >= earliest) break
      const leasedUntil = this.leases.get(slot)?.until
      const at = leasedUntil !== undefined && leasedUntil > due ? leasedUntil : due
      if (earliest === null || at < earliest) earliest = at
    }
    return earliest
  }
}
