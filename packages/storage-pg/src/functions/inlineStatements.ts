import { MAX_STATEMENT_PARAMS } from "@dealstream/core"

/**
 * The inline projections' statements of a commit (core's storage/inlineProjection.ts), as
 * ds_commit_batch runs them: the item's `x`, `[{n, q, p}]` (the projection's name, the SQL, its
 * parameters as text), each EXECUTEd in order with `p[1] … p[32]` as $1 … $32. USING takes a fixed
 * list, so every statement is given all 32 (unnamed ones are NULL and unused); they are typed text,
 * which the statements cast where a column is not. EXECUTE plans each statement anew: an inline
 * projection's cost is its statements' planning and execution, no round trip.
 *
 * `from` is the FROM clause yielding the items as `it(item, n)`; `projecting` a text variable
 * that holds the running statement's projection, for the handler to name it.
 */
export const runInlineStatements = (from: string, projecting: string): string => `FOR inline_statement IN
        SELECT x.s ->> 'n' AS n, x.s ->> 'q' AS q, ARRAY(SELECT jsonb_array_elements_text(x.s -> 'p')) AS p
        FROM ${from}, jsonb_array_elements(coalesce(it.item -> 'x', '[]')) WITH ORDINALITY AS x(s, k)
        ORDER BY it.n, x.k
      LOOP
        ${projecting} := inline_statement.n;
        EXECUTE inline_statement.q USING ${Array.from({ length: MAX_STATEMENT_PARAMS }, (_, i) => `inline_statement.p[${i + 1}]`).join(", ")};
      END LOOP;
      ${projecting} := NULL;`
