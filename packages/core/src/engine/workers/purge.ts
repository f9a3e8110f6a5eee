import { Clock, Effect } from "effect"
import type { Aggregate, AnyAggregate } from "../../aggregate.js"
import { RECOVERY_WINDOW_MILLIS } from "../../decider.js"
import type { DomainEvent } from "../../storage/events.js"
import type { EngineDeps } from "../base/deps.js"
import type { Addition, AlsoContext, HandleOptions } from "../commands/commandOptions.js"
import { handleCommand } from "../commands/handleCommand.js"
import type { RequestContext, WriteError } from "../contract/Engine.js"
import { purgedDeliveries, redactDeliveriesAhead } from "./purgedDeliveries.js"

const BATCH = 100

/** Two additions to one commit as one: streams, documents, redactions and signals of both, the payloads of the first that has them. */
const bothAdditions = (a: Addition, b: Addition): Addition => {
  const payloads = a.payloads ?? b.payloads
  const redactStreams = [...(a.redactStreams ?? []), ...(b.redactStreams ?? [])]
  const signals = [...(a.signals ?? []), ...(b.signals ?? [])]
  return {
    streams: [...a.streams, ...b.streams],
    documents: [...a.documents, ...b.documents],
    ...(payloads === undefined ? {} : { payloads }),
    ...(redactStreams.length === 0 ? {} : { redactStreams }),
    ...(signals.length === 0 ? {} : { signals })
  }
}

/**
 * One record's purge, the one way records are purged: by the purge worker past the trash window,
 * and at once by a person's erasure (records/privacy.ts). The payloads of the deliveries of its
 * events are redacted first, a page of deliveries per commit (redactDeliveriesAhead), so no
 * transaction grows with the record's history; then its own commit, the tombstone `command` makes
 * (`at` is the attempt's time): its documents removed, its earlier events redacted, and the
 * deliveries made meanwhile with them. `options` adds to that commit (an erasure's announcement,
 * with `also`) or sets how its stream is handled. Answers the command's outcome and how many
 * deliveries were redacted in all.
 */
export const purgeRecord = <C, E extends DomainEvent, S>(
  deps: EngineDeps,
  aggregate: Aggregate<C, E, S>,
  ctx: RequestContext,
  id: string,
  command: (at: string) => C,
  options: Partial<Pick<HandleOptions<C, E, S, unknown>, "prepare" | "also">> = {}
) =>
  Effect.gen(function* () {
    const ahead = yield* redactDeliveriesAhead(deps, ctx, id)
    let inCommit = 0
    const purged = purgedDeliveries(deps, ctx, (deliveries) => {
      inCommit = deliveries
    })
    const also = options.also
    const handled = yield* handleCommand(deps, aggregate, {
      ctx,
      streamId: id,
      ...(options.prepare === undefined ? {} : { prepare: options.prepare }),
      command: ({ at }) => Effect.succeed(command(at)),
      also: (context: AlsoContext<E>): Effect.Effect<Addition, WriteError> =>
        also === undefined ? purged(context) : Effect.zipWith(also(context), purged(context), bothAdditions)
    })
    return { handled, deliveries: ahead + inCommit }
  })

/**
 * Purges records soft-deleted more than 30 days ago, by the engine's Clock, of every aggregate that
 * has a trash (its `purge` command). Each purge is purgeRecord's (tombstone event, documents
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
          const ok = yield* purgeRecord(deps, aggregate, ctx, record.id, (at) => purge(record.id, at)).pipe(
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
