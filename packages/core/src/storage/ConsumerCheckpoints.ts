import { Context, type Effect, Schema, type Scope } from "effect"
import type { StorageUnavailable } from "../errors.js"

/** One consumer over one workspace's events: what a checkpoint and a lease are kept for. */
export interface ConsumerKey {
  readonly name: string
  readonly workspaceId: string
}

/**
 * Statements run in the transaction that stores a consumer's checkpoint (PostgreSQL): the handler's
 * own writes and the checkpoint commit together or not at all.
 */
export interface ConsumerTransaction {
  readonly execute: (
    sql: string,
    params?: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, StorageUnavailable>
}

/**
 * Where a consumer stands: the change feed cursor after the last events it finished (null: from the
 * oldest event), and how many deliveries of the events after it were begun and not finished.
 */
export interface ConsumerCheckpoint {
  readonly cursor: string | null
  readonly attempts: number
}

/** The lease was taken over (it expired) or revoked by a reset: the holder must stop and ask again. */
export class ConsumerLeaseLost extends Schema.TaggedError<ConsumerLeaseLost>()("ConsumerLeaseLost", {
  name: Schema.String,
  workspaceId: Schema.String
}) {}

/** What the holder of a consumer's lease may do; every step checks the lease is still its own. */
export interface ConsumerLease {
  /** The stored checkpoint, as it was when the lease was taken. */
  readonly checkpoint: ConsumerCheckpoint
  /**
   * Counts one more delivery of the events after the checkpoint, committed on its own so that the
   * next holder sees it after a crash. Answers the attempt number (1 for the first).
   */
  readonly begin: Effect.Effect<number, StorageUnavailable | ConsumerLeaseLost>
  /**
   * Runs `work`, then stores `cursor` as the checkpoint and renews the lease, atomically: on
   * PostgreSQL in one transaction that `work` is handed; where there is none, `work` gets null and
   * the checkpoint is stored only when it succeeded.
   */
  readonly advance: <A, E>(
    cursor: string | null,
    work: (transaction: ConsumerTransaction | null) => Effect.Effect<A, E>
  ) => Effect.Effect<A, E | StorageUnavailable | ConsumerLeaseLost>
  /** Extends the lease without moving the checkpoint. */
  readonly renew: Effect.Effect<void, StorageUnavailable | ConsumerLeaseLost>
  /** Fails when the lease is no longer this holder's (a reset revoked it), writing nothing: for an idle holder. */
  readonly check: Effect.Effect<void, StorageUnavailable | ConsumerLeaseLost>
}

/**
 * The storage of consumers' checkpoints and leases. One holder per key at a time: a lease that is
 * not renewed within its time can be taken by another, and every write of the old holder then fails.
 */
export interface ConsumerCheckpointsService {
  /**
   * Takes the lease when it is free or expired, else null; released when the scope closes. A
   * consumer seen for the first time starts at `from` (a feed cursor; null: the oldest event).
   */
  readonly acquire: (
    key: ConsumerKey,
    owner: string,
    leaseMillis: number,
    from: string | null
  ) => Effect.Effect<ConsumerLease | null, StorageUnavailable, Scope.Scope>
  /** Moves the checkpoint to `cursor` (null: the oldest event) and revokes the lease, so its holder reads it again. */
  readonly reset: (key: ConsumerKey, cursor: string | null) => Effect.Effect<void, StorageUnavailable>
  /** Every checkpoint of the name, whatever its workspace, back to the oldest event, their leases revoked. */
  readonly resetAll: (name: string) => Effect.Effect<void, StorageUnavailable>
  /** The stored checkpoint, or null. */
  readonly read: (key: ConsumerKey) => Effect.Effect<ConsumerCheckpoint | null, StorageUnavailable>
  /**
   * The workspaces whose log holds an event, in id order, after `after` (null: from the first), at
   * most `limit`: the partitions of a consumer over every workspace.
   */
  readonly workspaces: (after: string | null, limit: number) => Effect.Effect<ReadonlyArray<string>, StorageUnavailable>
}

/** Consumers' checkpoints, offered by both storages' layers beside Storage. */
export class ConsumerCheckpoints extends Context.Service<ConsumerCheckpoints, ConsumerCheckpointsService>()(
  "@dealstream/core/ConsumerCheckpoints"
) {}
