import { Engine } from "@dealstream/core"
import { Effect, Schedule } from "effect"

/**
 * Soft-deleted records older than 30 days are purged at start and then every hour. A failed run
 * is logged and retried at the next tick; it never stops the host.
 */
export const purgeSchedule = Effect.gen(function* () {
  const engine = yield* Engine
  const purgeOnce = engine.purgeExpired.pipe(
    Effect.tap((count) => (count > 0 ? Effect.annotateLogs(Effect.logInfo("purged expired records"), { count }) : Effect.void)),
    Effect.catchCause((cause) => Effect.logError("purge of expired records failed", cause))
  )
  yield* Effect.forkScoped(Effect.repeat(purgeOnce, Schedule.spaced("1 hour")))
})
