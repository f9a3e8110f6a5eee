/**
 * A stored function as it runs today: its whole `CREATE OR REPLACE FUNCTION` text, which migrate.ts
 * runs after the versioned migrations whenever it differs from the text last applied (by hash, kept
 * in ds_functions) or the function is missing. A versioned migration never restates a function: a
 * change of its text is a change of its file, and nothing else.
 *
 * What CREATE OR REPLACE cannot do goes through a versioned migration, which runs first: a changed
 * signature (argument types or names, return type) is a DROP of the old one, and a function taken
 * out of this folder is a DROP too. A migration whose trigger needs a new function creates it as a
 * stub that its file then replaces (the files apply only after every migration).
 *
 * Some texts follow the record type plug-ins the host was given (core's RecordTypes): the commit
 * functions write their tables, the feed trigger tells of their events. The database keeps one text
 * per function, so every host sharing a database must run the same plug-ins (documentTableList.ts
 * says what goes wrong otherwise).
 */
export interface StoredFunction {
  /** Its name, and the key of its row in ds_functions: one function per name, no overloads. */
  readonly name: string
  readonly text: string
}
