import type { Migration } from "./Migration.js"

/**
 * ds_read_in takes a read's parameters as one text array (functions/ds_read_in.ts), so that a list
 * page or a search, with any number of them, runs on the workspace's worker as a GET does. Its
 * signature changes, and CREATE OR REPLACE cannot change an argument's type: the old one goes
 * here, and the function step after every migration makes the new one. Until then, in this
 * transaction, no read calls it. On plain PostgreSQL nothing ever called it.
 */
export const migration: Migration = {
  id: 33,
  name: "reads on workers take params",
  statements: ["DROP FUNCTION IF EXISTS ds_read_in(text, text, text[], text)"]
}
