import type { Collection } from "@dealstream/core"
import { documentTables } from "../tables.js"

/**
 * tables.ts's collection-to-table map as pairs, which the commit functions spell out statement by
 * statement. Static statements, not EXECUTE over a table name: PL/pgSQL keeps each static
 * statement's plan for the session, while EXECUTE parses and plans on every call. A new collection
 * is an entry of documentTables (its type demands one), and the functions' texts follow it.
 */
export const documentTableList = Object.entries(documentTables) as ReadonlyArray<readonly [Collection, string]>
