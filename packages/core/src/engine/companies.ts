import { Effect } from "effect"
import type { EngineDeps } from "./deps.js"
import type { EngineService } from "./Engine.js"

// Skeleton wired by the integration commit; the companies helper replaces it whole.
const notBuilt = () => Effect.die(new Error("companies are not built yet"))

export const makeCompanies = (_deps: EngineDeps): EngineService["companies"] => ({
  list: notBuilt,
  get: notBuilt,
  create: notBuilt,
  update: notBuilt,
  delete: notBuilt,
  restore: notBuilt,
  history: notBuilt,
  batch: notBuilt
})
