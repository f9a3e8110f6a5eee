import type { Collection } from "@dealstream/core"
import { documentRowColumns, replaceOnConflict } from "../internal/documentRow.js"
import type { DocumentTableList } from "./documentTableList.js"
import type { StoredFunction } from "./StoredFunction.js"

/**
 * Group commit done set-wise. ds_commit_batch's loop runs each commit of a batch in a block of its
 * own: one subtransaction, and one INSERT per event, per document and per stream, for every commit.
 * An import of 100 contacts a request spent about 0.4 ms of PostgreSQL's CPU per contact that way,
 * most of it in the per-statement work of those single-row statements (bench/ANALYSIS.md).
 *
 * ds_commit_set writes a whole batch with one statement per table: the streams' locks and versions,
 * the settings versions read, the events (in batch order, so sequences follow it), the documents of
 * each collection. It applies only where every commit of the batch would have been stored, and then
 * writes exactly what the commits one by one would have: no redaction, no removal, no delivery, no
 * settings moved, no stream or document twice, every version read still current. Where that is not
 * known before writing it returns null; where it shows while writing (a stale version, a unique key
 * taken, a stream created meanwhile, a deadlock) it raises, and ds_commit_batch, which called it in a
 * block of its own, undoes it and runs the commits one by one, each answered on its own.
 *
 * Locks are taken in the order the one-by-one path takes them: the workspaces' settings locks
 * (shared, in key order), then the version rows of the streams (in id order). The feed marks are
 * ds_commit_batch's, taken before it calls this.
 */

/**
 * Collections the set path does not write (as when it was written, migration 0016): a batch that
 * upserts one of them goes one by one.
 */
const oneByOne: ReadonlyArray<Collection> = ["delivery"]

const itemsOf = `jsonb_array_elements(items) WITH ORDINALITY AS it(item, n)`
const streamsOf = `SELECT it.n, s.id, s.w, s.expected, s.added FROM ${itemsOf},
        jsonb_to_recordset(it.item -> 's') AS s(id text, w text, expected int, added int)`
const upsertsOf = `${itemsOf},
        jsonb_to_recordset(it.item -> 'u') AS u(c text, i int, w text, id text, v int, del text, d jsonb, u text, s text[], f jsonb)`

const upsertInto = ([collection, table]: readonly [string, string]) => `
      IF items @? '$[*].u[*] ? (@.c == "${collection}")' THEN
        INSERT INTO ${table} AS t (${documentRowColumns})
          SELECT u.w, u.id, u.v, u.del, u.d, u.u, coalesce(u.s, '{}'), u.f FROM ${upsertsOf}
          WHERE u.c = '${collection}' ORDER BY it.n, u.i
          ${replaceOnConflict(table)};
      END IF;`

export const ds_commit_set = (tables: DocumentTableList): StoredFunction => ({
  name: "ds_commit_set",
  text: `CREATE OR REPLACE FUNCTION ds_commit_set(items jsonb)
    RETURNS jsonb LANGUAGE plpgsql AS $set$
    DECLARE
      outcomes jsonb;
      ids text[];
    BEGIN
      IF EXISTS (
        SELECT 1 FROM ${itemsOf}
        WHERE jsonb_array_length(it.item -> 'r') > 0 OR jsonb_array_length(it.item -> 'd') > 0
          OR (it.item -> 'u') @? '$[*] ? (${oneByOne.map((c) => `@.c == "${c}"`).join(" || ")})'
          OR (it.item -> 's') @? '$[*] ? (@.settings == true && @.added > 0)'
      ) OR EXISTS (SELECT 1 FROM (${streamsOf}) AS s GROUP BY s.id HAVING count(*) > 1)
        OR EXISTS (SELECT 1 FROM ${upsertsOf} GROUP BY u.c, u.w, u.id HAVING count(*) > 1) THEN
        RETURN NULL;
      END IF;
      PERFORM pg_advisory_xact_lock_shared(1936028788, keys.k) FROM (
        SELECT DISTINCT hashtext(q.w) AS k FROM ${itemsOf}, jsonb_to_recordset(coalesce(it.item -> 'q', '[]')) AS q(w text)
        ORDER BY 1
      ) AS keys;
      IF EXISTS (
        SELECT 1 FROM ${itemsOf}, jsonb_to_recordset(coalesce(it.item -> 'q', '[]')) AS q(w text, v int)
        LEFT JOIN ds_settings_versions AS sv ON sv.workspace_id = q.w
        WHERE coalesce(sv.version, 0) <> q.v
      ) THEN
        RAISE EXCEPTION 'a settings version read is stale';
      END IF;
      -- The version table is read by key only: the planner cannot tell how many rows a jsonb
      -- function yields and would rather scan the whole table, every batch.
      ids := ARRAY(SELECT s.id FROM (${streamsOf}) AS s ORDER BY s.id);
      PERFORM 1 FROM ds_streams WHERE stream_id = ANY (ids) ORDER BY stream_id FOR UPDATE;
      IF EXISTS (
        SELECT 1 FROM (${streamsOf}) AS s
        WHERE coalesce((SELECT d.version FROM ds_streams AS d WHERE d.stream_id = s.id), 0) <> s.expected
      ) THEN
        RAISE EXCEPTION 'a stream version is stale';
      END IF;
      INSERT INTO ds_streams (stream_id, workspace_id, version)
        SELECT s.id, s.w, s.added FROM (${streamsOf}) AS s WHERE s.expected = 0 AND s.added > 0;
      UPDATE ds_streams AS d SET version = s.expected + s.added FROM (${streamsOf}) AS s
        WHERE d.stream_id = ANY (ids) AND d.stream_id = s.id AND s.expected > 0 AND s.added > 0;
      WITH inserted AS (
        INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
          SELECT e.s, e.v, e.w, e.t, e.d, e.m, (it.item ->> 'at')::timestamptz
          FROM ${itemsOf}, jsonb_to_recordset(it.item -> 'e') AS e(i int, s text, v int, w text, t text, d jsonb, m jsonb)
          ORDER BY it.n, e.i
          RETURNING sequence, stream_id, stream_version
      ), appended AS (
        SELECT s.n, jsonb_agg(jsonb_build_array(x.sequence, x.stream_id, x.stream_version) ORDER BY x.sequence) AS events
        FROM inserted AS x JOIN (${streamsOf}) AS s ON s.id = x.stream_id
        GROUP BY s.n
      )
      SELECT jsonb_agg(jsonb_build_object('events', coalesce(a.events, '[]'::jsonb)) ORDER BY it.n) INTO outcomes
        FROM ${itemsOf} LEFT JOIN appended AS a ON a.n = it.n;
      ${tables
        .filter(([collection]) => !oneByOne.includes(collection))
        .map(upsertInto)
        .join("")}
      RETURN outcomes;
    END
    $set$`
})
