/** The column keptPlan adds. */
export const KEPT_PLAN_COLUMN = ", NULL AS kept_plan"

/**
 * A select list whose plan PostgreSQL keeps on Citus, for a call of one of our functions with
 * parameters for arguments (a statement's `$1`, a PL/pgSQL variable). Citus takes a query that is a
 * lone call of a distributed function (every dealstream function is one, citus.ts) for a call to
 * delegate, and has PostgreSQL plan it afresh at every run, also on the worker where it then runs
 * the call itself (DissuadePlannerFromUsingPlan, Citus's planner/function_call_delegation.c): a
 * tenth of a millisecond each time for a commit's call. A second column makes it an ordinary query,
 * never delegated, whose generic plan is kept (test/citus/keptPlans shows both). So it is for calls
 * that already run where their workspace is: sent straight to its worker, or made inside one.
 */
export const keptPlan = (selectList: string): string => `${selectList}${KEPT_PLAN_COLUMN}`
