import {
  comparePositions,
  type DocumentQuery,
  evaluate,
  type FieldRef,
  type Position,
  type QueriedRow,
  type Scalar,
  sortValueOf
} from "@dealstream/core"
import { SortedList } from "./sortedList.js"

const ascending = comparePositions("asc")

/**
 * The rows of one scope (live or deleted) of a (collection, workspace) in the ascending order of
 * one sort field (runQuery's order: the value, absent last, then the id); a descending query walks
 * it backwards, which is exactly its order. Each row's sort value is read once, when it is written.
 *
 * Memory per row: one position object (value and id, 40 bytes on 64-bit Node) and its slot in the
 * sorted list (8 bytes): measured, 49 bytes a row over 100,000 rows sorted by text or a timestamp
 * (the position shares the row's strings), 68 by a number (the position holds a double of its own).
 */
export class SortIndex<Row extends QueriedRow> {
  /** Each row's position: the value it sorts by (as `sortValueOf` reads it) and its id. */
  private readonly entries: SortedList<Position>

  /** `rows` are the table's, by id: the index holds positions, the rows are read from here. */
  constructor(
    readonly field: FieldRef,
    readonly scope: DocumentQuery["scope"],
    private readonly rows: ReadonlyMap<string, Row>,
    chunkSize?: number
  ) {
    const entries: Array<Position> = []
    for (const row of rows.values()) if (this.holds(row)) entries.push(this.positionOf(row))
    this.entries = SortedList.of(ascending, entries, chunkSize)
  }

  /**
   * Moves the row from where `previous` (its last version, if any) sorted to where `next` (none
   * when removed) sorts. A write that leaves the sort value as it was changes nothing here.
   */
  update(previous: Row | undefined, next: Row | undefined): void {
    if (previous !== undefined && next !== undefined && this.holds(previous) === this.holds(next)) {
      // Most writes leave this field alone: the very same JSON value (a string or number is compared
      // by value, an object or array by reference) sorts the same, without reading it again.
      const name = this.field.name
      if (Object.hasOwn(previous.data, name) === Object.hasOwn(next.data, name) && previous.data[name] === next.data[name]) return
    }
    const was = previous !== undefined && this.holds(previous) ? this.positionOf(previous) : null
    const is = next !== undefined && this.holds(next) ? this.positionOf(next) : null
    if (was !== null && is !== null && ascending(was, is) === 0) return
    if (was !== null) this.entries.remove(was)
    if (is !== null) this.entries.insert(is)
  }

  /**
   * runQuery's answer for a query in this index's scope and sort: walks the rows strictly after
   * `after` in the query's direction, testing `where` on each, until `limit` rows matched. Costs
   * O(log n) plus the rows walked, about limit / (share of rows matching).
   */
  page(query: DocumentQuery): ReadonlyArray<Row> {
    const { after, limit, sort, where } = query
    const rows: Array<Row> = []
    if (limit <= 0) return rows
    const walk =
      sort.direction === "asc"
        ? this.entries.ascending(after === null ? always : (entry) => ascending(entry, after) > 0)
        : this.entries.descending(after === null ? always : (entry) => ascending(entry, after) < 0)
    for (const entry of walk) {
      const row = this.rows.get(entry.id)!
      if (!evaluate(where, row.data)) continue
      rows.push(row)
      if (rows.length === limit) break
    }
    return rows
  }

  /** Every position the index holds, in its order (MemoryStorage's `contents`). */
  positions(): ReadonlyArray<Position> {
    return [...this.entries.ascending(always)]
  }

  private holds(row: Row): boolean {
    return (row.deletedAt === null) === (this.scope === "live")
  }

  private positionOf(row: Row): Position {
    const value: Scalar | null = sortValueOf(row.data, this.field)
    return { value, id: row.id }
  }
}

const always = () => true
