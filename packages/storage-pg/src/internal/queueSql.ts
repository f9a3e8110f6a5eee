/**
 * The queue's conditions, spelled exactly as the partial index ds_deliveries_due
 * (migrations/0004) spells them: the planner uses it only for identical text.
 */
export const nextAttemptAt = `(data ->> 'next_attempt_at') COLLATE "C"`
export const isPending = `(data ->> 'status') = 'pending'`
