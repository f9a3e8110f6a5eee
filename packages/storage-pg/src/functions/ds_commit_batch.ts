import { markFeeds } from "./feedMark.js"
import { runInlineStatements } from "./inlineStatements.js"

/**
 * A transaction-local setting that keeps a batch off the set path (ds_commit_set), set by
 * ds_commit_batch_in on Citus: that path's statements join the batch's rows to the tables by
 * stream or workspace lists, which Citus runs on every shard or refuses (its FOR UPDATE over
 * stream ids), so there it only ever failed into the commits one by one, after a wasted try.
 */
export const ONE_BY_ONE = "dealstream.one_by_one"
import type { StoredFunction } from "./StoredFunction.js"

/**
 * Group commit (commitBatches.ts): several independent commits in one statement, hence one
 * transaction and one WAL flush. First the feed mark of every workspace of all its commits, before
 * any of them writes. Then, for more than one commit, the set-wise path (ds_commit_set) in a block
 * of its own; where it declines (null) or fails, the commits one by one, each in a block of its own
 * (a subtransaction), so a failure (a unique key taken, two creations of one stream, a deadlock with
 * another batch) undoes only that commit and is reported in its slot; the others stand. A version
 * mismatch is already an outcome, not an error. An item carrying settings reads (`q`, which the
 * client sends whenever the commit touches settings) goes through ds_commit_with_settings, any other
 * through ds_commit; an item without `q` is exactly what an earlier host sends.
 *
 * An item's inline projection statements (`x`, functions/inlineStatements.ts) run after its commit
 * stored its events, inside its block: a statement that fails undoes that commit alone, and its
 * slot's error names the projection (`projection`; null for any other failure, and for a deadlock
 * or serialization failure, a lost race the commit retries like any other). On the set path they
 * run after the whole batch is written, in batch order; one failing undoes the set path, and the
 * commits go one by one as above. A single commit with statements comes here as a batch of one
 * (commitBatches.ts): ds_commit has no room for them.
 */
export const ds_commit_batch: StoredFunction = {
  name: "ds_commit_batch",
  text: `CREATE OR REPLACE FUNCTION ds_commit_batch(items jsonb)
    RETURNS jsonb LANGUAGE plpgsql AS $batch$
    DECLARE
      item jsonb;
      outcome jsonb;
      outcomes jsonb := NULL;
      failed_code text;
      failed_constraint text;
      failed_message text;
      projecting text;
      inline_statement record;
    BEGIN
      ${markFeeds("e.w", "jsonb_array_elements(items) AS it(item), jsonb_to_recordset(it.item -> 'e') AS e(w text)")}
      IF jsonb_array_length(items) > 1 AND current_setting('${ONE_BY_ONE}', true) IS DISTINCT FROM 'on' THEN
        BEGIN
          outcomes := ds_commit_set(items);
          IF outcomes IS NOT NULL THEN
            ${runInlineStatements("jsonb_array_elements(items) WITH ORDINALITY AS it(item, n)", "projecting")}
          END IF;
        EXCEPTION WHEN OTHERS THEN
          outcomes := NULL;
        END;
        IF outcomes IS NOT NULL THEN
          RETURN outcomes;
        END IF;
      END IF;
      outcomes := '[]'::jsonb;
      FOR item IN SELECT value FROM jsonb_array_elements(items) LOOP
        projecting := NULL;
        BEGIN
          IF item ? 'q' THEN
            outcome := ds_commit_with_settings(
              item -> 's', item -> 'e', ARRAY(SELECT jsonb_array_elements_text(item -> 'r')),
              item -> 'd', item -> 'u', (item ->> 'at')::timestamptz, item -> 'q'
            );
          ELSE
            outcome := ds_commit(
              item -> 's', item -> 'e', ARRAY(SELECT jsonb_array_elements_text(item -> 'r')),
              item -> 'd', item -> 'u', (item ->> 'at')::timestamptz
            );
          END IF;
          IF item ? 'x' AND outcome ? 'events' THEN
            ${runInlineStatements("(SELECT item, 1) AS it(item, n)", "projecting")}
          END IF;
        EXCEPTION WHEN OTHERS THEN
          GET STACKED DIAGNOSTICS failed_code = RETURNED_SQLSTATE,
            failed_constraint = CONSTRAINT_NAME,
            failed_message = MESSAGE_TEXT;
          outcome := jsonb_build_object('error', jsonb_build_object(
            'code', failed_code,
            'constraint', nullif(failed_constraint, ''),
            'message', failed_message,
            'projection', CASE WHEN failed_code IN ('40P01', '40001') THEN NULL ELSE projecting END
          ));
        END;
        outcomes := outcomes || jsonb_build_array(outcome);
      END LOOP;
      RETURN outcomes;
    END
    $batch$`
}
