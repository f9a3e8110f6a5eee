import { Clock, Effect } from "effect"
import type { StorageService } from "../storage/Storage.js"
import type { IdsService } from "./Ids.js"

/** The services every engine module works with, captured once when the engine is made. */
export interface EngineDeps {
  readonly storage: StorageService
  readonly ids: IdsService
}

export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
