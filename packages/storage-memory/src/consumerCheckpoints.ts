import {
  type ConsumerCheckpoint,
  type ConsumerCheckpointsService,
  type ConsumerKey,
  ConsumerLeaseLost,
  compareText
} from "@dealstream/core"
import { Clock, Effect } from "effect"

interface Row {
  checkpoint: ConsumerCheckpoint | null
  owner: string | null
  leaseUntil: number
}

/**
 * Checkpoints and leases in this process's memory, with PostgreSQL's semantics: engines sharing one
 * memory share the leases. There is no transaction to hand a handler, so its writes are its own to
 * undo; a checkpoint is stored only after its work succeeded. `workspaces` are those whose log holds
 * an event.
 */
export const makeConsumerCheckpoints = (workspaces: () => Iterable<string>): ConsumerCheckpointsService => {
  const rows = new Map<string, Row>()
  const rowOf = (key: ConsumerKey): Row => {
    const id = JSON.stringify([key.workspaceId, key.name])
    let row = rows.get(id)
    if (row === undefined) {
      row = { checkpoint: null, owner: null, leaseUntil: 0 }
      rows.set(id, row)
    }
    return row
  }
  return {
    acquire: (key, owner, leaseMillis, from) =>
      Effect.gen(function* () {
        const row = rowOf(key)
        const now = yield* Clock.currentTimeMillis
        if (row.owner !== null && row.owner !== owner && row.leaseUntil >= now) return null
        row.owner = owner
        row.checkpoint ??= { cursor: from, attempts: 0 }
        row.leaseUntil = now + leaseMillis
        const held = Effect.suspend(() =>
          row.owner === owner ? Effect.void : Effect.fail(new ConsumerLeaseLost({ name: key.name, workspaceId: key.workspaceId }))
        )
        const renew = Effect.andThen(held, () =>
          Effect.map(Clock.currentTimeMillis, (at) => {
            row.leaseUntil = at + leaseMillis
          })
        )
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            if (row.owner === owner) row.owner = null
          })
        )
        const stored = (): ConsumerCheckpoint => row.checkpoint ?? { cursor: from, attempts: 0 }
        return {
          checkpoint: stored(),
          begin: Effect.andThen(renew, () => {
            row.checkpoint = { cursor: stored().cursor, attempts: stored().attempts + 1 }
            return Effect.succeed(row.checkpoint.attempts)
          }),
          // A stop waits for the page and its checkpoint: no transaction could undo the half of it that was handled.
          advance: (cursor, work) =>
            Effect.uninterruptible(
              Effect.gen(function* () {
                yield* held
                const result = yield* work(null)
                yield* renew
                row.checkpoint = { cursor, attempts: 0 }
                return result
              })
            ),
          renew,
          check: held
        }
      }),
    reset: (key, cursor) =>
      Effect.sync(() => {
        const row = rowOf(key)
        row.checkpoint = { cursor, attempts: 0 }
        row.owner = null
      }),
    resetAll: (name) =>
      Effect.sync(() => {
        for (const [id, row] of rows) {
          if ((JSON.parse(id) as [string, string])[1] !== name) continue
          row.checkpoint = { cursor: null, attempts: 0 }
          row.owner = null
        }
      }),
    workspaces: (after, limit) =>
      Effect.sync(() =>
        // In PostgreSQL's order (COLLATE "C"), which a page's `after` continues.
        [...workspaces()]
          .filter((id) => after === null || compareText(id, after) > 0)
          .sort(compareText)
          .slice(0, limit)
      ),
    read: (key) => Effect.sync(() => rows.get(JSON.stringify([key.workspaceId, key.name]))?.checkpoint ?? null)
  }
}
