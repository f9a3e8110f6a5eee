import type { Collection, RecordTypePlugin } from "@dealstream/core"
import type { DocumentTableList } from "./functions/documentTableList.js"
import { documentTables, searchWordTables, tables } from "./tables.js"

/**
 * The document tables one storage serves: the built-in collections' (tables.ts) and those of the
 * plug-ins it was given (core's RecordTypes), each a plug-in's `postgres.table`. Made once, when the
 * storage is made, and handed to every module that names a collection's table, and to the stored
 * functions' texts (functions/index.ts).
 */
export interface DocumentTableMap {
  /** The plug-ins, in the order given: their migrations and their feed's event types. */
  readonly plugins: ReadonlyArray<RecordTypePlugin>
  /** Every collection with its table, the built-in ones first (tables.ts's order), then the plug-ins'. */
  readonly list: DocumentTableList
  /**
   * The collection's table. A collection that is neither built in nor a plug-in's is the caller's
   * defect: it throws, which inside an Effect (call it there) is a die naming the collection.
   */
  readonly table: (collection: Collection) => string
  /** The collection's words table (tables.ts's searchWordTables); none for a plug-in. */
  readonly words: (collection: Collection) => string | undefined
}

// A plug-in's names enter SQL text: its collection as a string literal (the commit functions'
// CASEs, the feed trigger's LIKE), its table as an identifier. Core allows lower-case letters and
// underscores in a name; anything else is refused here rather than spliced in.
const pluginName = /^[a-z_]{1,63}$/
const tableName = /^[a-z_][a-z0-9_]*$/
/**
 * Room for the longest index suffix, `_unique_key` (documentTableSql.ts): PostgreSQL cuts a name to
 * 63 bytes, and commit.ts reads the table back from its `_unique_key` index's name.
 */
const TABLE_NAME_MAX = 63 - "_unique_key".length

const engineTables = new Set<string>([...Object.values(tables), ...Object.values(documentTables), ...Object.values(searchWordTables)])

const refuse = (plugin: RecordTypePlugin, why: string): never => {
  throw new Error(`storage-pg: refusing the record type plug-in ${JSON.stringify(plugin.name)}: ${why}`)
}

/** The map of a storage serving `plugins` besides the built-in collections; a plug-in it cannot serve throws. */
export const documentTableMap = (plugins: ReadonlyArray<RecordTypePlugin>): DocumentTableMap => {
  const byCollection = new Map<string, string>(Object.entries(documentTables))
  const taken = new Set(engineTables)
  for (const plugin of plugins) {
    const table = plugin.postgres.table
    if (!pluginName.test(plugin.name)) refuse(plugin, "its name is not lower-case letters and underscores")
    if (byCollection.has(plugin.name)) refuse(plugin, "a collection of that name is served already")
    if (!tableName.test(table) || table.length > TABLE_NAME_MAX) {
      refuse(plugin, `its table ${JSON.stringify(table)} is not a lower-case name of at most ${TABLE_NAME_MAX} characters`)
    }
    if (taken.has(table)) refuse(plugin, `its table ${table} is another's`)
    byCollection.set(plugin.name, table)
    taken.add(table)
  }
  const words = new Map<string, string>(Object.entries(searchWordTables).flatMap(([c, w]) => (w === undefined ? [] : [[c, w] as const])))
  return {
    plugins,
    list: [...byCollection] as DocumentTableList,
    table: (collection) => {
      const table = byCollection.get(collection)
      if (table === undefined) {
        throw new Error(`storage-pg: no document table for the collection ${JSON.stringify(collection)}: neither built in nor a plug-in's`)
      }
      return table
    },
    words: (collection) => words.get(collection)
  }
}

/** A storage's without plug-ins. */
export const builtInTables: DocumentTableMap = documentTableMap([])
