import type { Collection, ExpiredRecord } from "@dealstream/core"
import { compareText } from "@dealstream/core"
import { SortedList } from "./sortedList.js"

interface Trashed extends ExpiredRecord {
  readonly deletedAt: string
}

// PostgreSQL's order (listDeletedBefore.ts): oldest deletion first, then workspace, then id.
const byDeletion = (a: Trashed, b: Trashed): number =>
  compareText(a.deletedAt, b.deletedAt) || compareText(a.workspaceId, b.workspaceId) || compareText(a.id, b.id)

interface TrashedRow {
  readonly workspaceId: string
  readonly id: string
  readonly deletedAt: string | null
}

/**
 * The soft-deleted documents of each collection, oldest deletion first: the purge's question
 * (deleted at or before a cutoff) walks from the start and stops at the first later one, instead of
 * reading every document.
 */
export class Trash {
  private readonly collections = new Map<Collection, SortedList<Trashed>>()

  /** A document of `collection` was written (`next` undefined: removed). */
  update(collection: Collection, previous: TrashedRow | undefined, next: TrashedRow | undefined): void {
    if (previous?.deletedAt === next?.deletedAt) return
    const trashed = this.listOf(collection)
    if (previous !== undefined && previous.deletedAt !== null) trashed.remove(entryOf(previous, previous.deletedAt))
    if (next !== undefined && next.deletedAt !== null) trashed.insert(entryOf(next, next.deletedAt))
  }

  /** Every soft-deleted document's entry, per collection, as plain data (MemoryStorage's `contents`). */
  contents(): ReadonlyArray<{
    readonly collection: Collection
    readonly entries: ReadonlyArray<ExpiredRecord & { readonly deletedAt: string }>
  }> {
    return [...this.collections].map(([collection, list]) => ({ collection, entries: [...list.ascending(() => true)] }))
  }

  clear(collection: Collection): void {
    this.collections.delete(collection)
  }

  deletedBefore(collection: Collection, cutoff: string, limit: number): ReadonlyArray<ExpiredRecord> {
    const wanted = Math.max(0, Math.floor(limit))
    const expired: Array<ExpiredRecord> = []
    if (wanted === 0) return expired
    for (const { deletedAt, id, workspaceId } of this.listOf(collection).ascending(() => true)) {
      if (compareText(deletedAt, cutoff) > 0) break
      expired.push({ workspaceId, id })
      if (expired.length === wanted) break
    }
    return expired
  }

  private listOf(collection: Collection): SortedList<Trashed> {
    let list = this.collections.get(collection)
    if (list === undefined) {
      list = new SortedList(byDeletion)
      this.collections.set(collection, list)
    }
    return list
  }
}

const entryOf = (row: TrashedRow, deletedAt: string): Trashed => ({ workspaceId: row.workspaceId, id: row.id, deletedAt })
