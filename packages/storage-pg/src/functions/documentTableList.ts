import type { Collection } from "@dealstream/core"

/**
 * The collections one storage serves, each with its table (documentTableMap.ts: tables.ts's
 * built-in ones, then each plug-in's), which the commit functions spell out statement by statement.
 * Static statements, not EXECUTE over a table name: PL/pgSQL keeps each static statement's plan
 * for the session, while EXECUTE parses and plans on every call. A new built-in collection is an
 * entry of documentTables (its type demands one), a plug-in brings its table, and the functions'
 * texts follow the list.
 *
 * So the functions a host applies write the tables of the plug-ins it was given, and of no other:
 * every host sharing a database must run the same plug-ins. A host given fewer would apply, at its
 * start, functions that refuse the commits of the plug-ins it lacks (a CASE with no branch for their
 * collection), and hosts given different sets would each apply their own texts again at every start.
 */
export type DocumentTableList = ReadonlyArray<readonly [Collection, string]>
