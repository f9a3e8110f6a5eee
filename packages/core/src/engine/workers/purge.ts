import { Clock, Effect } from "effect"
import type { AnyAggregate } from "../../aggregate.js"
import { RECOVERY_WINDOW_MILLIS } from "../../decider.js"
import type { EngineDeps } from "../base/deps.js"
import { handleCommand } from "../commands/handleCommand.js"
import { purgedDeliveries } from "./purgedDeliveries.js"

const BATCH = 100

/**
 * Purges records soft-deleted more than 30 days ago, by the engine's Clock, of every aggregate that
 * has a trash (its `purge` command). Each purge is its own commit (tombstone event, documents
 * removed, earlier events redacted, with its deliveries'); a record that cannot be purged (restored
 * meanwhile, say) is skipped, and a batch that purges nothing ends the run.
 */
export const makePurge = (deps: EngineDeps, aggregates: ReadonlyArray<AnyAggregate>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    // One millisecond past the window: restore is allowed up to exactly 30 days, purge only after.
    const cutoff = new Date(now - RECOVERY_WINDOW_MILLIS - 1).toISOString()
    let purged = 0
    for (const aggregate of aggregates) {
      const purge = aggregate.purge
      const collection = aggregate.collections[0]
      if (purge === undefined || collection === undefined) continue
      for (;;) {
        const expired = yield* deps.storage.listDeletedBefore(collection, cutoff, BATCH)
        let done = 0
        for (const record of expired) {
          const ctx = { workspaceId: record.workspaceId, requestId: null, actor: "system:purge" }
          const ok = yield* handleCommand(deps, aggregate, {
            ctx,
            streamId: record.id,
            command: ({ at }) => Effect.succeed(purge(record.id, at)),
            also: purgedDeliveries(deps, ctx)
          }).pipe(
            Effect.as(true),
            // Only an unreachable storage stops the run; a record that refuses purging is skipped.
            Effect.catchIf(
              (error) => error._tag !== "StorageUnavailable",
              () => Effect.succeed(false)
            )
          )
          if (ok) done++
        }
        purged += done
        if (expired.length < BATCH || done === 0) break
      }
    }
    return purged
  })
