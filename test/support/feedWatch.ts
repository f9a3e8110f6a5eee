import { type DeliveryQueue, Storage, type StorageService } from "@dealstream/core"
import { Context, Effect, Layer, Stream } from "effect"

/**
 * Tells a test when a long-polling read of the change feed waits, so that it writes only then: a
 * write sent beside the read may be committed before the read starts, and the read then answers at
 * once without ever having waited, which a test of waiting must not take for a pass.
 *
 * The engine (engine/feed/feed.ts) reads the feed, and when that finds nothing, takes its place in line
 * to be woken, reads again, and only then waits. So once the storage has answered two reads of a
 * workspace's feed in a row with nothing, a reader of that feed is in line: a commit from then on
 * wakes it. The storage is the real one; the watch only looks at what its reads return.
 */
export interface FeedReadWatch {
  /** The storage, its feed reads watched. */
  readonly storage: StorageService
  /**
   * Watches the workspace's feed from now on: resolves once two reads of it in a row found nothing.
   * Call it before the read is sent, with no other reader of that workspace's feed about.
   */
  readonly readerInLine: (workspaceId: string) => Promise<void>
  /**
   * Whether a consumer of the storage's feed changes (the engine's listener) has been told of a
   * commit to this workspace: once it has, it listens, and hears every commit after.
   */
  readonly heard: (workspaceId: string) => boolean
}

export const watchFeedReads = (storage: StorageService): FeedReadWatch => {
  const watches = new Set<{ readonly workspaceId: string; empty: number; readonly inLine: () => void }>()
  const heard = new Set<string>()
  return {
    storage: {
      ...storage,
      feedChanges: Stream.tap(storage.feedChanges, (change) =>
        Effect.sync(() => {
          if (change._tag === "Appended") heard.add(change.workspaceId)
        })
      ),
      readFeed: (options) =>
        Effect.tap(storage.readFeed(options), (page) =>
          Effect.sync(() => {
            for (const watch of watches) {
              if (watch.workspaceId !== options.workspaceId) continue
              watch.empty = page.events.length === 0 ? watch.empty + 1 : 0
              if (watch.empty < 2) continue
              watches.delete(watch)
              watch.inLine()
            }
          })
        )
    },
    readerInLine: (workspaceId) => new Promise((inLine) => watches.add({ workspaceId, empty: 0, inLine })),
    heard: (workspaceId) => heard.has(workspaceId)
  }
}

/** A storage layer whose Storage has its feed reads watched (its DeliveryQueue as it is). */
export const watchingFeedReads = <E>(base: Layer.Layer<Storage | DeliveryQueue, E>) => {
  let watch: FeedReadWatch | undefined
  const layer = Layer.effectContext(
    Effect.gen(function* () {
      const context = yield* Effect.context<Storage | DeliveryQueue>()
      watch = watchFeedReads(Context.get(context, Storage))
      return Context.add(context, Storage, watch.storage)
    })
  ).pipe(Layer.provide(base))
  return {
    layer,
    readerInLine: (workspaceId: string) => {
      if (watch === undefined) throw new Error("the watched storage is made when its layer is built")
      return watch.readerInLine(workspaceId)
    }
  }
}

/**
 * Resolves once `inLine` does, and fails if the read's `answer` comes first: then it answered
 * without waiting, and whatever it holds proves nothing about waiting.
 */
export const inLineBeforeAnswer = async (inLine: Promise<void>, answer: Promise<unknown>): Promise<void> => {
  const first = await Promise.race([inLine.then(() => "in line" as const), answer.then(() => "answered" as const)])
  if (first === "answered") throw new Error(`the read answered before it waited: ${JSON.stringify(await answer)}`)
}
