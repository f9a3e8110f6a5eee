import { DeliveryQueue, type DeliveryQueueService, Storage, type StorageService } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { pgStorageLayer } from "./pg.js"

/** A storage and its delivery queue, as engineOver (engine.ts) takes them. */
export interface StorageServices {
  readonly storage: StorageService
  readonly queue: DeliveryQueueService
}

/**
 * Declares `body` twice in the enclosing describe: "memory storage<suffix>" on a memory storage of
 * its own, and "PostgreSQL<suffix>" on the PostgreSQL storage of a database of the file's own.
 */
export const onBothStorages = <E>(
  body: (services: StorageServices, kind: "memory" | "postgres") => Effect.Effect<void, E>,
  suffix = ""
): void => {
  it.effect(`memory storage${suffix}`, () =>
    Effect.flatMap(MemoryStorage.makeWithQueue, ({ queue, storage }) => body({ storage, queue }, "memory"))
  )
  it.layer(pgStorageLayer, { timeout: 120_000 })((it) => {
    it.effect(`PostgreSQL${suffix}`, () =>
      Effect.gen(function* () {
        yield* body({ storage: yield* Storage, queue: yield* DeliveryQueue }, "postgres")
      })
    )
  })
}
