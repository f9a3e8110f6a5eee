import { Effect, Layer } from "effect"
import { Storage } from "../storage/Storage.js"
import { makeContacts } from "./contacts.js"
import { makeCustomFields } from "./customFields.js"
import { makeDeals } from "./deals.js"
import { Engine, type EngineService } from "./Engine.js"
import { makeIdempotency } from "./idempotency.js"
import { Ids } from "./Ids.js"
import { makePipelines } from "./pipelines.js"
import { makePurge } from "./purge.js"
import { makeTrash } from "./trash.js"
import { makeWorkspaces } from "./workspace.js"

export const makeEngine: Effect.Effect<EngineService, never, Storage | Ids> = Effect.gen(function*() {
  const deps = { storage: yield* Storage, ids: yield* Ids }
  const workspaces = makeWorkspaces(deps)
  const customFields = makeCustomFields(deps, workspaces)
  const contacts = makeContacts(deps, workspaces, customFields)
  const pipelines = makePipelines(deps, workspaces)
  const deals = makeDeals(deps, workspaces, contacts, pipelines)
  return Engine.of({
    contacts: {
      list: contacts.list,
      get: contacts.get,
      create: contacts.create,
      update: contacts.update,
      delete: contacts.delete,
      restore: contacts.restore
    },
    deals: {
      list: deals.list,
      get: deals.get,
      create: deals.create,
      update: deals.update,
      moveStage: deals.moveStage,
      delete: deals.delete,
      restore: deals.restore,
      timeline: deals.timeline
    },
    pipelines: {
      list: pipelines.list,
      get: pipelines.get,
      create: pipelines.create,
      update: pipelines.update
    },
    customFields: { list: customFields.list, create: customFields.create, delete: customFields.delete },
    trash: makeTrash(deps, workspaces, contacts),
    idempotency: makeIdempotency(deps),
    purgeExpired: makePurge(deps, contacts, deals),
    ping: deps.storage.ping
  })
})

/** The engine over whatever Storage and Ids are provided. */
export const EngineLive: Layer.Layer<Engine, never, Storage | Ids> = Layer.effect(Engine, makeEngine)
