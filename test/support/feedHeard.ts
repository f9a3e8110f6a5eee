import type { NewEvent, StorageService } from "@dealstream/core"
import { expect } from "@effect/vitest"
import { Effect, Fiber, Option, Stream } from "effect"

let counter = 0
const fresh = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`

const eventOf = (workspaceId: string, type: string): NewEvent => ({
  type,
  data: {},
  metadata: { workspaceId, eventId: fresh("evt"), requestId: null, actor: null }
})

/**
 * Shows that a storage tells its feed's listeners of a commit of `told` events and not of `untold`
 * ones. Each commit appends an `untold` event to one workspace, then a `told` one to another, until
 * a listener of either hears one: it must be the second. A subscription starts listening
 * asynchronously (on PostgreSQL, LISTEN on a connection of its own), hence the commits until it
 * hears. The memory storage tells of a commit's workspaces in the order of its events, so there an
 * `untold` event that was told would be heard first; PostgreSQL's order within one commit is not
 * defined, and there the test shows only that `told` events are told.
 */
export const heardFirst = (storage: StorageService, types: { readonly told: string; readonly untold: string }) =>
  Effect.gen(function* () {
    const [ws, quiet] = [fresh("ws"), fresh("ws")]
    const heard = yield* Effect.forkChild(
      Stream.runHead(
        Stream.filter(
          storage.feedChanges,
          (change) => change._tag === "Appended" && (change.workspaceId === ws || change.workspaceId === quiet)
        )
      )
    )
    const committer = yield* Effect.forkChild(
      Effect.forever(
        Effect.suspend(() =>
          storage.commit({
            streams: [
              { streamId: fresh("quiet"), expectedVersion: 0, events: [eventOf(quiet, types.untold)] },
              { streamId: fresh("told"), expectedVersion: 0, events: [eventOf(ws, types.told)] }
            ],
            documents: []
          })
        ).pipe(Effect.andThen(Effect.sleep("100 millis")))
      )
    )
    const told = yield* Fiber.join(heard).pipe(Effect.timeout("20 seconds"))
    yield* Fiber.interrupt(committer)
    expect(told).toEqual(Option.some({ _tag: "Appended", workspaceId: ws }))
  })
