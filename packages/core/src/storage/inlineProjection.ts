import { Context, Result, Schema } from "effect"
import type { Json, JsonObject } from "../json.js"
import type { ChangeFeedTypes } from "./changeFeed.js"

/**
 * An event as an inline projection is handed it: as the change feed shows it (`data` is the
 * announced payload, the record as the API showed it), with its stream and version, but without a
 * `sequence`: the storage hands that out while storing the commit, after the projection has run.
 * Key rows by `id` (unique, known at once) and order a record's events by `stream_version`.
 */
export interface InlineEvent {
  readonly id: string
  readonly type: string
  readonly created_at: string
  readonly workspace_id: string
  readonly stream_id: string
  readonly stream_version: number
  readonly data: JsonObject
}

/**
 * A statement on the embedder's own PostgreSQL tables, run inside the commit's transaction after
 * its events are written. Parameters travel as text (numbers and booleans in their JSON spelling,
 * objects and arrays as JSON text, null as NULL), at most MAX_STATEMENT_PARAMS of them: cast them in
 * the SQL where a column is not text (`$2::numeric`, `$3::jsonb`).
 */
export interface SqlStatement {
  readonly sql: string
  readonly params?: ReadonlyArray<Json>
}

/** The most parameters a SqlStatement may name ($1 … $32). */
export const MAX_STATEMENT_PARAMS = 32

/**
 * A value the memory storage keeps for a projection: read it with `current()`. Its state is only
 * ever replaced whole, by the commit that stored the events it folds, so a reader never sees the
 * effects of a commit that was not stored.
 */
export interface InlineStore<S> {
  readonly current: () => S
  /** Replaces the state: the memory storage's, once the commit is sure to be stored. */
  readonly replace: (state: S) => void
}

/** A store starting at `initial` (make a new one per engine: one store serves one storage). */
export const inlineStore = <S>(initial: S): InlineStore<S> => {
  let state = initial
  return {
    current: () => state,
    replace: (next) => {
      state = next
    }
  }
}

/**
 * An inline projection as registered: the events it handles, what they change (`project`), and how
 * a change is written on each storage. Write what an event means once, in `project`, as values of
 * your own (`{ owner, month, amount }`), and only the writing twice: `postgres` turns one change into
 * statements on your tables, `memory` folds it into a state of your own (pure: return the next state,
 * never mutate the one given). A projection needs the target of the storage it runs on: a commit
 * it handles fails with ProjectionFailed on a storage whose target it lacks.
 *
 * Everything runs inside the commit: a throw, or a statement PostgreSQL refuses, fails the command
 * with ProjectionFailed and stores nothing of it. On Citus inline projections are refused.
 */
export interface InlineProjectionOf<C, S> {
  /** Names the projection in errors. */
  readonly name: string
  /** The event types it handles, as the change feed's `types` (`deal.*`); all of the feed's when absent. */
  readonly types?: ChangeFeedTypes
  /** What a commit's events (those of `types`, in commit order; never none) change. */
  readonly project: (events: ReadonlyArray<InlineEvent>) => ReadonlyArray<C>
  /** PostgreSQL: the statements that write one change, run in order after the commit's events. */
  readonly postgres?: (change: C) => SqlStatement | ReadonlyArray<SqlStatement>
  /** Memory: the store the memory storage keeps, and the pure fold of one change into its state. */
  readonly memory?: { readonly store: InlineStore<S>; readonly apply: (state: S, change: C) => S }
}

/** A storage an inline projection can be written to (StorageService's inlineTarget). */
export type InlineTarget = "postgres" | "memory"

/**
 * Why the engine cannot run these projections on a storage whose target is `target` (null: one
 * that runs none, PostgreSQL on Citus), or null when it can: said when the engine is built, so a
 * misconfigured projection fails at start rather than at its first commit.
 */
export const inlineRefusal = (projections: ReadonlyArray<InlineProjection>, target: InlineTarget | null): string | null => {
  if (projections.length === 0) return null
  if (target === null) {
    return `inline projections do not run on this storage (PostgreSQL on Citus): register ${projections.map((p) => p.name).join(", ")} on a single PostgreSQL server or memory storage`
  }
  const lacking = projections.find((projection) => !projection.targets.includes(target))
  return lacking === undefined ? null : `inline projection ${lacking.name} has no ${target} target, and the storage is ${target}`
}

/**
 * The form the engine takes projections in, whatever their change and state types (made by
 * `inlineProjection`): `write` runs `project` over a commit's events and readies both targets.
 */
export interface InlineProjection {
  readonly name: string
  /** As InlineProjectionOf's `types`; null for every type of the feed. */
  readonly types: ChangeFeedTypes | null
  /** The storages it has a target for: the engine refuses it, when built, on a storage it lacks. */
  readonly targets: ReadonlyArray<InlineTarget>
  readonly write: (events: ReadonlyArray<InlineEvent>) => InlineWrite
}

/**
 * What one projection makes of one commit, for the storage to run inside it. Each target is a
 * thunk, run only by the storage it serves (null when the projection has none): a throw in it is
 * the projection's failure.
 */
export interface InlineWrite {
  readonly projection: string
  /** PostgreSQL: the statements, in order. */
  readonly statements: (() => ReadonlyArray<SqlStatement>) | null
  /** Memory: folds the changes into the next state, and answers how to install it once the commit stores. */
  readonly memory: (() => () => void) | null
}

/** Registers a projection (see InlineProjectionOf): give the result in the InlineProjections context. */
export const inlineProjection = <C, S = never>(definition: InlineProjectionOf<C, S>): InlineProjection => ({
  name: definition.name,
  types: definition.types ?? null,
  targets: [
    ...(definition.postgres === undefined ? [] : ["postgres" as const]),
    ...(definition.memory === undefined ? [] : ["memory" as const])
  ],
  write: (events) => {
    const changes = definition.project(events)
    const { memory, postgres } = definition
    return {
      projection: definition.name,
      statements: postgres === undefined ? null : () => changes.flatMap((change) => postgres(change)),
      memory:
        memory === undefined
          ? null
          : () => {
              const next = changes.reduce(memory.apply, memory.store.current())
              return () => memory.store.replace(next)
            }
    }
  }
})

/** The inline projections every commit of the engine runs: none unless given. */
export const InlineProjections = Context.Reference<ReadonlyArray<InlineProjection>>("@dealstream/core/InlineProjections", {
  defaultValue: () => []
})

/**
 * An inline projection failed inside a commit (it threw, its storage has no target of it, or
 * PostgreSQL refused one of its statements): nothing of the commit was stored. A defect in the
 * embedder's projection or tables, not in the request: the same request fails the same way.
 */
export class ProjectionFailed extends Schema.TaggedError<ProjectionFailed>()("ProjectionFailed", {
  projection: Schema.String,
  message: Schema.String
}) {}

/** A throw inside a projection's code as ProjectionFailed. */
export const projectionFailed = (projection: string, cause: unknown): ProjectionFailed =>
  new ProjectionFailed({
    projection,
    message: `inline projection ${projection} failed: ${cause instanceof Error ? cause.message : String(cause)}`
  })

/**
 * Runs each projection's target for the storage at hand (`target` picks it, `storage` names the
 * storage): a projection without one, or one whose target throws, fails the commit before anything
 * is written, naming the projection.
 */
export const runInlineTargets = <T>(
  writes: ReadonlyArray<InlineWrite>,
  storage: string,
  target: (write: InlineWrite) => (() => T) | null
): Result.Result<ReadonlyArray<T>, ProjectionFailed> => {
  const results: Array<T> = []
  for (const write of writes) {
    const run = target(write)
    if (run === null) {
      return Result.fail(
        new ProjectionFailed({
          projection: write.projection,
          message: `inline projection ${write.projection} has no ${storage} target, and the storage is ${storage}`
        })
      )
    }
    try {
      results.push(run())
    } catch (cause) {
      return Result.fail(projectionFailed(write.projection, cause))
    }
  }
  return Result.succeed(results)
}
