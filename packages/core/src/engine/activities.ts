import { Effect } from "effect"
import type { EngineDeps } from "./deps.js"
import type { EngineService } from "./Engine.js"

// Skeleton wired by the integration commit; the activities helper replaces it whole.
const notBuilt = () => Effect.die(new Error("activities are not built yet"))

export const makeActivities = (_deps: EngineDeps): EngineService["activities"] => ({
  list: notBuilt,
  get: notBuilt,
  create: notBuilt,
  update: notBuilt,
  delete: notBuilt,
  restore: notBuilt,
  history: notBuilt
})
