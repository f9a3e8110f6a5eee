import { type DocumentQuery, type QueriedRow, runQuery } from "@dealstream/core"
import { SortIndex } from "./sortIndex.js"

/**
 * How many sort indexes one table keeps (least recently queried dropped first): a list sorts by one
 * of a few standard fields, but every custom field may be sorted by, and each index costs 50 to 70
 * bytes a row (sortIndex.ts): at most about 550 bytes a row for all of them. A dropped index is
 * built again, O(n log n), when next asked for.
 */
const MAX_INDEXES = 8

/** Sizes a test may make small, to reach eviction and many chunks with few rows. */
export interface TableOptions {
  readonly maxIndexes: number
  /** The sorted lists' chunk size (sortedList.ts); undefined for its default. */
  readonly chunkSize?: number
}

/**
 * The documents of one collection in one workspace, by id, with the sort indexes its queries have
 * asked for: built on a query's first use of a sort field and scope, then kept up to date by every
 * write, so a page walks from its cursor instead of filtering and sorting every row.
 */
export class DocumentTable<Row extends QueriedRow> {
  readonly rows = new Map<string, Row>()
  /** By field name, type and scope; in order of last use (a Map keeps insertion order). */
  private readonly indexes = new Map<string, SortIndex<Row>>()

  constructor(private readonly options: TableOptions = { maxIndexes: MAX_INDEXES }) {}

  /** Every row and every index's positions (values it sorts by, ids), as plain data (MemoryStorage's `contents`). */
  contents(): {
    readonly rows: ReadonlyArray<Row>
    readonly indexes: ReadonlyArray<{ readonly key: string; readonly positions: ReadonlyArray<unknown> }>
  } {
    return { rows: [...this.rows.values()], indexes: [...this.indexes].map(([key, index]) => ({ key, positions: index.positions() })) }
  }

  /** Writes `row` (undefined removes the row with `id`), moving it in every index. */
  put(id: string, row: Row | undefined): void {
    const previous = this.rows.get(id)
    if (row === undefined) this.rows.delete(id)
    else this.rows.set(id, row)
    for (const index of this.indexes.values()) index.update(previous, row)
  }

  /** Exactly `runQuery(rows, query)`. */
  query(query: DocumentQuery): ReadonlyArray<Row> {
    if (!indexable(query)) return runQuery(this.rows.values(), query)
    return this.indexFor(query).page(query)
  }

  private indexFor(query: DocumentQuery): SortIndex<Row> {
    const { field } = query.sort
    const key = `${query.scope}\u0000${field.type}\u0000${field.name}`
    let index = this.indexes.get(key)
    if (index === undefined) {
      index = new SortIndex(field, query.scope, this.rows, this.options.chunkSize)
      if (this.indexes.size >= this.options.maxIndexes) this.indexes.delete(this.indexes.keys().next().value!)
    } else {
      this.indexes.delete(key)
    }
    this.indexes.set(key, index)
    return index
  }
}

/**
 * Queries an index answers exactly as runQuery does. runQuery slices by `limit` (a fraction or a
 * negative count slice otherwise), and a NaN cursor value compares equal to every value, which
 * makes no order an index could search: such hand-made queries go through runQuery itself, as do
 * sorts by a derived field.
 */
const indexable = ({ after, limit, sort }: DocumentQuery): boolean =>
  Number.isSafeInteger(limit) &&
  limit >= 0 &&
  !(typeof after?.value === "number" && Number.isNaN(after.value)) &&
  // A derived field's values move with what it is derived from (a pipeline's probabilities), not with the row.
  sort.field.derived === undefined
