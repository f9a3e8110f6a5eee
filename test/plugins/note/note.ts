import { type RecordTypePlugin, recordFieldTable, STANDARD_TEXT_MAX, text, trimmedText } from "@dealstream/core"
import { noteMigrations } from "./migration.js"

/**
 * A record type no built-in code knows: the proof that a plug-in is served like companies are, from
 * this folder, the one line that gives it (`RecordTypes`) and its migration.
 */
export const note: RecordTypePlugin = {
  name: "note",
  plural: "notes",
  title: "Note",
  prefix: "note",
  fields: recordFieldTable("note", [
    {
      name: "title",
      type: "text",
      check: trimmedText(1, 200),
      required: true,
      sortable: true,
      searchable: true,
      description: "The note's title."
    },
    { name: "body", type: "text", check: text(STANDARD_TEXT_MAX), nullable: true, searchable: true, description: "What it says." },
    { name: "slug", type: "text", check: trimmedText(1, 100), nullable: true, sortable: true, description: "Unique among live notes." }
  ]),
  uniqueField: "slug",
  postgres: { table: "ds_test_notes", migrations: noteMigrations }
}
