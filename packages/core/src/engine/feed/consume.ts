import { Clock, Effect, Fiber, Option, Random, type Scope } from "effect"
import type { ValidationError } from "../../errors.js"
import type { ConsumerCheckpointsService, ConsumerLease } from "../../storage/ConsumerCheckpoints.js"
import type { Consume, Consumer, ConsumeOptions, ConsumersService } from "../contract/Consumer.js"
import { ConsumersUnavailable } from "../contract/Consumer.js"
import type { EngineService, RequestContext } from "../contract/Engine.js"

/** How long one feed read waits for an event (seconds): the lease is renewed between reads. */
const WAIT_SECONDS = "1"

/** A handler's failure is retried after this, doubling to the last (milliseconds). */
const RETRY_MILLIS = { first: 50, last: 5_000 } as const

const unavailable = new ConsumersUnavailable({
  message: "this storage keeps no consumer checkpoints (ConsumerCheckpoints is not provided)"
})

/**
 * Consumers: a handler run over a workspace's change feed (the feed's own reads, so the same order
 * and the same payloads), page by page, each page's handling and its checkpoint stored together,
 * by whichever process holds the consumer's lease.
 */
export const makeConsumers = (
  list: EngineService["events"]["list"],
  checkpoints: Option.Option<ConsumerCheckpointsService>,
  scope: Scope.Scope
): { readonly consume: Consume; readonly consumers: ConsumersService } => {
  const store = Option.match(checkpoints, { onNone: () => Effect.fail(unavailable), onSome: Effect.succeed })

  const consume = <E>(options: ConsumeOptions<E>): Effect.Effect<Consumer, ConsumersUnavailable | ValidationError> =>
    Effect.gen(function* () {
      const checkpoints = yield* store
      const key = { name: options.name, workspaceId: options.workspaceId }
      const ctx: RequestContext = { workspaceId: options.workspaceId, requestId: null, actor: `consumer ${options.name}` }
      const leaseMillis = options.leaseMillis ?? 30_000
      const limit = String(options.batchSize ?? 100)
      const types = (options.types ?? []).join(",")
      const read = (cursor: string | null, wait: string) =>
        list(ctx, { ...(cursor === null ? {} : { after: cursor }), ...(types === "" ? {} : { types }), limit, wait })
      // A cursor of another workspace, or options the feed refuses, are said now rather than retried forever.
      yield* read(options.from ?? null, "0").pipe(Effect.catchTag("StorageUnavailable", () => Effect.void))
      const owner = `${options.owner ?? "consumer"}:${(yield* Random.nextIntBetween(0, 2 ** 31)).toString(36)}`
      let active = false

      /** Handles pages while the lease is this process's; ends only by failing. */
      const follow = (lease: ConsumerLease) =>
        Effect.gen(function* () {
          let cursor = lease.checkpoint.cursor
          let renewed = yield* Clock.currentTimeMillis
          let retry: number = RETRY_MILLIS.first
          for (;;) {
            const page = yield* Effect.orDie(read(cursor, WAIT_SECONDS))
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

      const hold = Effect.scoped(
        Effect.gen(function* () {
          const lease = yield* checkpoints.acquire(key, owner, leaseMillis, options.from ?? null)
          if (lease === null) return
          active = true
          yield* follow(lease).pipe(Effect.ensuring(Effect.sync(() => (active = false))))
        })
      ).pipe(
        Effect.catchTag("ConsumerLeaseLost", () => Effect.void),
        Effect.catchTag("StorageUnavailable", (error) => Effect.logWarning(`consumer ${options.name}: ${error.message}`))
      )
      // Not holding the lease, a process asks again a few times per lease time, to take over from a holder that died.
      const fiber = yield* Effect.forkIn(Effect.forever(Effect.andThen(hold, () => Effect.sleep(Math.min(leaseMillis / 3, 1_000)))), scope)
      return { stop: Fiber.interrupt(fiber), active: Effect.sync(() => active) }
    })

  return {
    consume,
    consumers: {
      reset: ({ from, name, workspaceId }) => Effect.flatMap(store, (checkpoints) => checkpoints.reset({ name, workspaceId }, from)),
      checkpoint: (key) => Effect.flatMap(store, (checkpoints) => checkpoints.read(key))
    }
  }
}

const isTagged = (error: unknown, tag: string): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && (error as { _tag: unknown })._tag === tag
