import { type Effect, Schema } from "effect"
import type { StorageUnavailable, ValidationError } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import type { ConsumerCheckpoint, ConsumerTransaction } from "../../storage/ConsumerCheckpoints.js"

/** What a handler is told beside each event. */
export interface ConsumerDelivery {
  /**
   * The how-many-th delivery of this event's page this is: 1 the first time, more after a handler
   * failed or a holder died before storing the checkpoint (at-least-once handlers dedupe on it, or
   * on the event's id).
   */
  readonly attempt: number
  /**
   * On PostgreSQL, the transaction that stores the checkpoint past this event: statements run
   * through it commit with the checkpoint or not at all (exactly once). null on memory storage.
   */
  readonly transaction: ConsumerTransaction | null
}

/** `engine.consume`'s options. */
export interface ConsumeOptions<E = never> {
  /** The consumer's name: its checkpoint and its lease are kept under it (and the workspace). */
  readonly name: string
  /**
   * Whose events: one workspace's change feed, or ALL_WORKSPACES (`"*"`) for every workspace's.
   * Over every workspace each workspace is a partition with a checkpoint and a lease of its own:
   * its events come in its commit order, workspaces are not ordered among themselves, and several
   * processes running the name share the workspaces between them. A workspace's first event starts
   * its partition (the storage's feed signal; a list of the workspaces with events catches any
   * signal lost, every DISCOVER_MILLIS).
   */
  readonly workspaceId: string
  /** Event types as the change feed takes them (`deal.stage_changed`, `contact.*`); empty or absent: all. */
  readonly types?: ReadonlyArray<string>
  /**
   * Called once per event, in commit order, with the event exactly as the change feed shows it.
   * A failure is retried with the same events (the attempt number grows); the consumer never skips.
   */
  readonly handler: (event: JsonObject, delivery: ConsumerDelivery) => Effect.Effect<void, E>
  /**
   * Where a consumer with no checkpoint yet starts: a change feed cursor; absent or null, the oldest
   * event. A cursor names one workspace, so over every workspace only null is taken.
   */
  readonly from?: string | null
  /** Named in this process's lease, for whoever reads the table (a random suffix keeps it unique). */
  readonly owner?: string
  /** How many events one transaction takes at most (1–1000, default 100). */
  readonly batchSize?: number
  /** How long a lease lasts unrenewed before another process may take over (default 30 s). */
  readonly leaseMillis?: number
}

/** A running consumer of this process. */
export interface Consumer {
  /**
   * Stops handling and releases the lease. On PostgreSQL a page not yet committed is rolled back
   * (it comes again to the next holder); on memory storage the stop waits for the page and its checkpoint.
   */
  readonly stop: Effect.Effect<void>
  /** Whether this process holds the lease now (another process may be the active one). */
  readonly active: Effect.Effect<boolean>
}

/** `workspaceId` of a consumer over every workspace's events (ConsumeOptions). */
export const ALL_WORKSPACES = "*"

/**
 * Where a consumer is reset to: `from` a change feed cursor, or null for the oldest event. With
 * `workspaceId` ALL_WORKSPACES every workspace's checkpoint of the name goes back to the oldest
 * event (`from` must be null); one workspace's partition is reset by naming it.
 */
export interface ConsumerReset {
  readonly name: string
  readonly workspaceId: string
  readonly from: string | null
}

/** The storage the engine was built on keeps no consumers' checkpoints (no ConsumerCheckpoints service). */
export class ConsumersUnavailable extends Schema.TaggedError<ConsumersUnavailable>()("ConsumersUnavailable", {
  message: Schema.String
}) {}

/**
 * Starts a consumer in this process; it runs until stopped or the engine is released. Fails at once
 * when `from` or `types` are refused by the change feed.
 */
export type Consume = <E>(options: ConsumeOptions<E>) => Effect.Effect<Consumer, ConsumersUnavailable | ValidationError>

/** The stored side of the engine's consumers. */
export interface ConsumersService {
  /** Moves a consumer's checkpoint (all its processes read it again), to rebuild its read model. */
  readonly reset: (reset: ConsumerReset) => Effect.Effect<void, ConsumersUnavailable | ValidationError | StorageUnavailable>
  /** A consumer's stored checkpoint, or null if it never ran. */
  readonly checkpoint: (
    consumer: Pick<ConsumerReset, "name" | "workspaceId">
  ) => Effect.Effect<ConsumerCheckpoint | null, ConsumersUnavailable | StorageUnavailable>
}
