import { builtInTables } from "../documentTableMap.js"
import { documentRowColumns, replaceOnConflict } from "../internal/documentRow.js"
import { tables } from "../tables.js"
import type { DocumentTableList } from "./documentTableList.js"
import { markFeeds } from "./feedMark.js"
import type { StoredFunction } from "./StoredFunction.js"
import { commitStatement, type Layout } from "./workspaceRows.js"

/**
 * A commit (commit.ts sends one alone; ds_commit_with_settings and ds_commit_batch call it). Hosts
 * of every version call this name with these arguments, so every commit is marked whichever host
 * sent it.
 *
 * First the feed mark of every workspace it appends to (functions/feedMark.ts), before anything is
 * written: feedBound.ts waits only for running transactions that carry their workspace's mark.
 * Then its checks and writes. Called as one statement, it is atomic without BEGIN and COMMIT round
 * trips. PL/pgSQL keeps each inner statement's plan for the session, so a commit costs its
 * execution, not the parse and planning of one large statement. Every inner statement touches one
 * row by its key, so those cached plans stay index lookups whatever the table sizes were when they
 * were made (a set-based join over jsonb_to_recordset, planned generically for 100 rows, turned
 * into sequential scans of ds_streams as it grew).
 *
 * Arguments (built by commit.ts):
 * - streams: [{i, id, w, expected, added}] and events: [{i, s, v, w, t, d, m}], in commit order;
 * - redact: stream ids whose earlier events lose their data;
 * - removes: [{c, w, id}] and upserts: [{c, i, …upsertRecord}], c the collection, one write per
 *   document (commit.ts keeps the last), upserts in commit order.
 * Returns {conflict: [streamId, expected, actual]} for the first stale stream, in commit order,
 * having written nothing; else {events: [[sequence, streamId, streamVersion]…]}. A unique key held
 * by another document raises 23505 on the table's `_unique_key` index; two commits creating one
 * stream, 23505 on ds_streams_pkey. Either error undoes the whole call.
 */

const removeFrom =
  (layout: Layout) =>
  ([collection, table]: readonly [string, string]) =>
    `WHEN '${collection}' THEN
          ${commitStatement(layout, { table, workspace: "doc.w", sql: "DELETE FROM {t} WHERE workspace_id = $1 AND id = $2", params: ["doc.w", "doc.id"] })}`

const upsertInto =
  (layout: Layout) =>
  ([collection, table]: readonly [string, string]) =>
    `WHEN '${collection}' THEN
          ${commitStatement(layout, {
            table,
            workspace: "doc.w",
            sql: `INSERT INTO {t} AS t (${documentRowColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ${replaceOnConflict(table)}`,
            params: ["doc.w", "doc.id", "doc.v", "doc.del", "doc.d", "doc.u", "coalesce(doc.s, '{}')", "doc.f"]
          })}`

/** A stream's version row, by its workspace and id. */
const streamRow = { table: tables.streams, workspace: "stream.w", params: ["stream.w", "stream.id"] } as const
const streamKey = "workspace_id = $1 AND stream_id = $2"

/**
 * The events' append. On Citus a shard has no identity of its own: the distributed table's sequence,
 * which on each worker hands out a range of its own, numbers them, in commit order as the identity
 * does (PostgreSQL computes a volatile select-list item after the sort). The sequence has the name
 * PostgreSQL gives an identity column's (migration 0001).
 */
const appendEvents = (layout: Layout) =>
  commitStatement(layout, {
    table: tables.events,
    workspace: "(events -> 0 ->> 'w')",
    sql: `WITH inserted AS (
        INSERT INTO {t} (${layout === "citus" ? "sequence, " : ""}stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
          ${layout === "citus" ? "OVERRIDING SYSTEM VALUE " : ""}SELECT ${layout === "citus" ? `nextval('${tables.events}_sequence_seq'), ` : ""}e.s, e.v, e.w, e.t, e.d, e.m, $2
          FROM jsonb_to_recordset($1) AS e(i int, s text, v int, w text, t text, d jsonb, m jsonb)
          ORDER BY e.i
          RETURNING sequence, stream_id, stream_version
      )
      SELECT jsonb_agg(jsonb_build_array(sequence, stream_id, stream_version)) FROM inserted`,
    params: ["events", "recorded"],
    into: "appended"
  })

/**
 * The commit function's text under `name`, writing the tables of `tables`. "unmarked" leaves the
 * feed mark out, and exists only so that test/storage/feedStrangers.pg.spec.ts can plant, in its
 * own database, a commit that runs this very body without the mark and show the gap the mark
 * closes; the schema has only ds_commit, marked.
 */
export const commitFunctionText = (
  name: string,
  feedMark: "marked" | "unmarked",
  documentTables: DocumentTableList = builtInTables.list,
  layout: Layout = "plain"
): string =>
  `CREATE OR REPLACE FUNCTION ${name}(
      streams jsonb, events jsonb, redact text[], removes jsonb, upserts jsonb, recorded timestamptz
    )
    RETURNS jsonb LANGUAGE plpgsql AS $commit$
    DECLARE
      stream record;
      doc record;
      current_version integer;
      redacted_stream text;
      written text[];
      appended jsonb;
    BEGIN
      ${feedMark === "marked" ? markFeeds("e.w", "jsonb_to_recordset(events) AS e(w text)") : "-- No feed mark: a test's planted commit."}
      -- Lock the version rows in id order, so two commits over the same streams cannot deadlock;
      -- in READ COMMITTED each statement here then reads what committed before it.
      -- Every statement names the stream's workspace too, so that on Citus it runs on the one
      -- worker holding it (citus.ts).
      FOR stream IN SELECT a.id, a.w FROM jsonb_to_recordset(streams) AS a(id text, w text) ORDER BY a.id LOOP
        ${commitStatement(layout, { ...streamRow, sql: `SELECT 1 FROM {t} WHERE ${streamKey} FOR UPDATE`, perform: true })}
      END LOOP;
      FOR stream IN SELECT * FROM jsonb_to_recordset(streams) AS a(i int, id text, w text, expected int) ORDER BY a.i LOOP
        ${commitStatement(layout, { ...streamRow, sql: `SELECT version FROM {t} WHERE ${streamKey}`, into: "current_version" })}
        current_version := coalesce(current_version, 0);
        IF current_version <> stream.expected THEN
          RETURN jsonb_build_object('conflict', jsonb_build_array(stream.id, stream.expected, current_version));
        END IF;
      END LOOP;
      -- Before the append: a stream's earlier events are redacted, never its new tombstone.
      -- A redacted stream belongs to a workspace the commit writes (a purge's, a delivery's record).
      IF cardinality(redact) > 0 THEN
        written := ARRAY(
          SELECT a.w FROM jsonb_to_recordset(streams) AS a(w text)
          UNION SELECT u.w FROM jsonb_to_recordset(upserts) AS u(w text)
          UNION SELECT r.w FROM jsonb_to_recordset(removes) AS r(w text)
        );
        FOREACH redacted_stream IN ARRAY redact LOOP
          UPDATE ds_events SET data = '{"redacted": true}'::jsonb WHERE workspace_id = ANY (written) AND stream_id = redacted_stream;
        END LOOP;
      END IF;
      FOR stream IN SELECT * FROM jsonb_to_recordset(streams) AS a(id text, w text, expected int, added int) LOOP
        CONTINUE WHEN stream.added = 0;
        IF stream.expected = 0 THEN
          ${commitStatement(layout, {
            ...streamRow,
            sql: "INSERT INTO {t} (stream_id, workspace_id, version) VALUES ($2, $1, $3)",
            params: [...streamRow.params, "stream.added"]
          })}
        ELSE
          ${commitStatement(layout, {
            ...streamRow,
            sql: `UPDATE {t} SET version = $3 WHERE ${streamKey}`,
            params: [...streamRow.params, "stream.expected + stream.added"]
          })}
        END IF;
      END LOOP;
      IF jsonb_array_length(events) > 0 THEN
        ${appendEvents(layout)}
      END IF;
      -- Removals first, so a key one frees is free for an upsert of the same commit; upserts in
      -- commit order, so a document may take a key another gave up earlier in the commit.
      FOR doc IN SELECT * FROM jsonb_to_recordset(removes) AS r(c text, w text, id text) LOOP
        CASE doc.c
          ${documentTables.map(removeFrom(layout)).join("\n          ")}
        END CASE;
      END LOOP;
      FOR doc IN SELECT * FROM jsonb_to_recordset(upserts) AS u(c text, i int, w text, id text, v int, del text, d jsonb, u text, s text[], f jsonb)
        ORDER BY u.i LOOP
        CASE doc.c
          ${documentTables.map(upsertInto(layout)).join("\n          ")}
        END CASE;
      END LOOP;
      RETURN jsonb_build_object('events', coalesce(appended, '[]'::jsonb));
    END
    $commit$`

export const ds_commit = (documentTables: DocumentTableList, layout: Layout): StoredFunction => ({
  name: "ds_commit",
  text: commitFunctionText("ds_commit", "marked", documentTables, layout)
})
