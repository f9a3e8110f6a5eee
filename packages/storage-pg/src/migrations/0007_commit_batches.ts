import type { Migration } from "./Migration.js"

/**
 * Group commit: several independent commits in one statement, hence one transaction and one WAL
 * flush. Each runs `ds_commit` in a block of its own (a subtransaction), so a failure (a unique key
 * taken, two creations of one stream, a deadlock with another batch) undoes only that commit and is
 * reported in its slot; the others stand. A version mismatch is already an outcome, not an error.
 */
export const migration: Migration = {
  id: 7,
  name: "commit batches",
  statements: [
    `CREATE OR REPLACE FUNCTION ds_commit_batch(items jsonb)
    RETURNS jsonb LANGUAGE plpgsql AS $batch$
    DECLARE
      item jsonb;
      outcome jsonb;
      outcomes jsonb := '[]'::jsonb;
      failed_code text;
      failed_constraint text;
      failed_message text;
    BEGIN
      FOR item IN SELECT value FROM jsonb_array_elements(items) LOOP
        BEGIN
          outcome := ds_commit(
            item -> 's',
            item -> 'e',
            ARRAY(SELECT jsonb_array_elements_text(item -> 'r')),
            item -> 'd',
            item -> 'u',
            (item ->> 'at')::timestamptz
          );
        EXCEPTION WHEN OTHERS THEN
          GET STACKED DIAGNOSTICS failed_code = RETURNED_SQLSTATE,
            failed_constraint = CONSTRAINT_NAME,
            failed_message = MESSAGE_TEXT;
          outcome := jsonb_build_object('error', jsonb_build_object(
            'code', failed_code,
            'constraint', nullif(failed_constraint, ''),
            'message', failed_message
          ));
        END;
        outcomes := outcomes || jsonb_build_array(outcome);
      END LOOP;
      RETURN outcomes;
    END
    $batch$`
  ]
}
