import { Clock, Effect, Exit, Fiber, Option, Random, Scope, Stream } from "effect"
import { type StorageUnavailable, ValidationError } from "../../errors.js"
import type { ConsumerCheckpointsService, ConsumerLease } from "../../storage/ConsumerCheckpoints.js"
import type { FeedChange } from "../../storage/Storage.js"
import type { Consume, Consumer, ConsumeOptions, ConsumersService } from "../contract/Consumer.js"
import { ALL_WORKSPACES, ConsumersUnavailable } from "../contract/Consumer.js"
import type { EngineService, RequestContext } from "../contract/Engine.js"

/** How long one feed read waits for an event (seconds): the lease is renewed between reads. */
const WAIT_SECONDS = "1"

/** A handler's failure is retried after this, doubling to the last (milliseconds). */
const RETRY_MILLIS = { first: 50, last: 5_000 } as const

const unavailable = new ConsumersUnavailable({
  message: "this storage keeps no consumer checkpoints (ConsumerCheckpoints is not provided)"
})

/** A consumer over every workspace lists the workspaces with events this often, for any feed signal lost. */
export const DISCOVER_MILLIS = 60_000

/**
 * And first at these delays after it starts (milliseconds): its first listing may run before the
 * feed's listener is in place (on PostgreSQL a LISTEN connection still connecting), and a workspace
 * whose first event was committed in between is signalled to nobody. The next listing finds it.
 */
export const FIRST_DISCOVERIES = [1_000, 2_000, 4_000, 8_000] as const

/** Workspaces listed per storage read while discovering. */
const DISCOVER_PAGE = 500

/**
 * Consumers: a handler run over a workspace's change feed (the feed's own reads, so the same order
 * and the same payloads), page by page, each page's handling and its checkpoint stored together,
 * by whichever process holds the consumer's lease. Over every workspace (ALL_WORKSPACES) each
 * workspace is such a consumer of its own, a partition, started when the workspace is first seen.
 */
export const makeConsumers = (
  list: EngineService["events"]["list"],
  feedChanges: Stream.Stream<FeedChange, StorageUnavailable>,
  checkpoints: Option.Option<ConsumerCheckpointsService>,
  scope: Scope.Scope
): { readonly consume: Consume; readonly consumers: ConsumersService } => {
  const store = Option.match(checkpoints, { onNone: () => Effect.fail(unavailable), onSome: Effect.succeed })

  const consume = <E>(options: ConsumeOptions<E>): Effect.Effect<Consumer, ConsumersUnavailable | ValidationError> =>
    Effect.gen(function* () {
      const checkpoints = yield* store
      const every = options.workspaceId === ALL_WORKSPACES
      if (every && (options.from ?? null) !== null) {
        return yield* Effect.fail(ValidationError.at("from", "must be absent over every workspace: a cursor names one workspace"))
      }
      const leaseMillis = options.leaseMillis ?? 30_000
      const limit = String(options.batchSize ?? 100)
      const types = (options.types ?? []).join(",")
      const reader = (workspaceId: string) => {
        const ctx: RequestContext = { workspaceId, requestId: null, actor: `consumer ${options.name}` }
        return (cursor: string | null, wait: string) =>
          list(ctx, { ...(cursor === null ? {} : { after: cursor }), ...(types === "" ? {} : { types }), limit, wait })
      }
      // A cursor of another workspace, or options the feed refuses, are said now rather than retried forever.
      yield* reader(options.workspaceId)(options.from ?? null, "0").pipe(Effect.catchTag("StorageUnavailable", () => Effect.void))
      const owner = `${options.owner ?? "consumer"}:${(yield* Random.nextIntBetween(0, 2 ** 31)).toString(36)}`
      const holding = new Set<string>()

      /** Handles one workspace's pages while the lease is this process's; ends only by failing. */
      const follow = (workspaceId: string, lease: ConsumerLease) =>
        Effect.gen(function* () {
          const read = reader(workspaceId)
          let cursor = lease.checkpoint.cursor
          let renewed = yield* Clock.currentTimeMillis
          let retry: number = RETRY_MILLIS.first
          for (;;) {
            // Options were checked at the start: a refusal now is a defect; an unavailable storage ends the hold (see partition).
            const page = yield* read(cursor, WAIT_SECONDS).pipe(Effect.catchTag("ValidationError", Effect.die))
            if (page.data.length === 0) {
              // Past events of other types too, so that they are not read again.
              if (page.next_cursor !== cursor) yield* lease.advance(page.next_cursor, () => Effect.void)
              else if ((yield* Clock.currentTimeMillis) - renewed > leaseMillis / 3) yield* lease.renew
              else {
                // A reset revokes the lease: an idle holder finds out here, within a read's wait.
                yield* lease.check
                continue
              }
            } else {
              const attempt = yield* lease.begin
              const handled = yield* lease
                .advance(page.next_cursor, (transaction) =>
                  Effect.forEach(page.data, (event) => options.handler(event, { attempt, transaction }), { discard: true })
                )
                .pipe(
                  Effect.as(true),
                  Effect.catchIf(
                    (error): error is E => !isTagged(error, "ConsumerLeaseLost") && !isTagged(error, "StorageUnavailable"),
                    (error) => Effect.as(Effect.logWarning(`consumer ${options.name}: handler failed (attempt ${attempt})`, error), false)
                  )
                )
              if (!handled) {
                yield* Effect.sleep(retry)
                retry = Math.min(retry * 2, RETRY_MILLIS.last)
                continue
              }
              retry = RETRY_MILLIS.first
            }
            cursor = page.next_cursor
            renewed = yield* Clock.currentTimeMillis
          }
        })

      /**
       * One workspace's consumer: takes the lease when it is free, follows while it holds it, and
       * asks again a few times per lease time, to take over from a holder that died. Over every
       * workspace a partition asks less often: a standby process asks for each of them.
       */
      const partition = (workspaceId: string) => {
        const hold = Effect.scoped(
          Effect.gen(function* () {
            const lease = yield* checkpoints.acquire({ name: options.name, workspaceId }, owner, leaseMillis, options.from ?? null)
            if (lease === null) return
            holding.add(workspaceId)
            yield* follow(workspaceId, lease).pipe(Effect.ensuring(Effect.sync(() => holding.delete(workspaceId))))
          })
        ).pipe(
          Effect.catchTag("ConsumerLeaseLost", () => Effect.void),
          Effect.catchTag("StorageUnavailable", (error) => Effect.logWarning(`consumer ${options.name}: ${error.message}`)),
          // Whatever else ends a hold (a defect in a handler, say) is logged, and the partition asks
          // again: a consumer never stops for good while it runs.
          Effect.catchCause((cause) => Effect.logError(`consumer ${options.name} (${workspaceId}) stopped holding`, cause))
        )
        const again = every ? leaseMillis / 3 : Math.min(leaseMillis / 3, 1_000)
        return Effect.forever(Effect.andThen(hold, () => Effect.sleep(again)))
      }

      if (!every) {
        const fiber = yield* Effect.forkIn(partition(options.workspaceId), scope)
        return { stop: Fiber.interrupt(fiber), active: Effect.sync(() => holding.size > 0) }
      }

      // Every workspace: a partition per workspace, in a scope of this consumer's that stop closes.
      const partitions = yield* Scope.fork(scope, "parallel")
      const started = new Set<string>()
      const start = (workspaceId: string) =>
        started.has(workspaceId)
          ? Effect.void
          : Effect.suspend(() => {
              started.add(workspaceId)
              return Effect.asVoid(Effect.forkIn(partition(workspaceId), partitions))
            })
      const discover = Effect.gen(function* () {
        for (let after: string | null = null; ; ) {
          const page: ReadonlyArray<string> = yield* checkpoints.workspaces(after, DISCOVER_PAGE)
          yield* Effect.forEach(page, start, { discard: true })
          if (page.length < DISCOVER_PAGE) return
          after = page.at(-1)!
        }
      })
      const retried = <A>(effect: Effect.Effect<A, StorageUnavailable>) =>
        effect.pipe(
          Effect.catchTag("StorageUnavailable", (error) =>
            Effect.andThen(Effect.logWarning(`consumer ${options.name}: ${error.message}`), Effect.sleep(1_000))
          )
        )
      // The signal names each workspace that gains events; Resumed (a lost listening connection) stands for any.
      const signalled = Stream.runForEach(feedChanges, (change) => (change._tag === "Appended" ? start(change.workspaceId) : discover))
      const listed = Effect.andThen(Effect.sleep(DISCOVER_MILLIS), retried(discover))
      const soon = Effect.forEach(FIRST_DISCOVERIES, (millis) => Effect.andThen(Effect.sleep(millis), retried(discover)), { discard: true })
      const listing = retried(discover).pipe(Effect.andThen(soon), Effect.andThen(Effect.forever(listed)))
      yield* Effect.forkIn(
        Effect.all([Effect.forever(retried(signalled)), listing], { concurrency: "unbounded", discard: true }),
        partitions
      )
      return { stop: Scope.close(partitions, Exit.void), active: Effect.sync(() => holding.size > 0) }
    })

  return {
    consume,
    consumers: {
      reset: ({ from, name, workspaceId }) =>
        Effect.flatMap(store, (checkpoints): Effect.Effect<void, ValidationError | StorageUnavailable> => {
          if (workspaceId !== ALL_WORKSPACES) return checkpoints.reset({ name, workspaceId }, from)
          if (from !== null)
            return Effect.fail(ValidationError.at("from", "must be null over every workspace: a cursor names one workspace"))
          return checkpoints.resetAll(name)
        }),
      checkpoint: (key) => Effect.flatMap(store, (checkpoints) => checkpoints.read(key))
    }
  }
}

const isTagged = (error: unknown, tag: string): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && (error as { _tag: unknown })._tag === tag
