import { Effect } from "effect"
import { apiKeyIdOf, SYSTEM_WORKSPACE } from "../../apiKey/input.js"
import type { EngineService, RequestContext } from "../../engine/contract/Engine.js"
import type { StorageUnavailable } from "../../errors.js"
import { recordTypes } from "../../recordTypes.js"
import type { ChangeFeedPosition } from "../../storage/changeFeed.js"
import type { Collection, StoredDocument } from "../../storage/documents.js"
import type { StoredEvent } from "../../storage/events.js"
import type { StorageService } from "../../storage/Storage.js"

/** What one workspace of a run has made so far, by id in creation order. */
export interface Made {
  readonly contacts: Array<string>
  readonly deals: Array<string>
  readonly companies: Array<string>
  readonly activities: Array<string>
  /** Deleted and not restored since, latest last: restores and purges find something to act on. */
  deletedContacts: Array<string>
  deletedDeals: Array<string>
  deletedCompanies: Array<string>
  deletedActivities: Array<string>
}

/** A command of the run, and how the engine answered: "accepted" or the refusal's tag. */
export interface Outcome<Step> {
  readonly step: Step
  readonly outcome: string
}

/**
 * One run of a model-based property as its steps and invariants see it: the engine and storage it
 * runs on, its own workspaces (no other run uses them, so runs may share a storage), what it made,
 * and reads of its events and documents.
 */
export interface World<Step = unknown> {
  readonly engine: EngineService
  readonly storage: StorageService
  /** The run's workspaces; commands name them by index, modulo their number. */
  readonly workspaces: ReadonlyArray<RequestContext>
  /** The run's first workspace. */
  readonly ctx: RequestContext
  readonly made: ReadonlyArray<Made>
  /** The SHA-256 of the run's API key `n`: digests no other run uses. */
  readonly keyDigest: (n: number) => string
  /** Every step so far with its outcome. */
  readonly outcomes: Array<Outcome<Step>>
  /** How many of `events` there were before the current step ran. */
  eventsBefore: number
  /** How many commands of each kind were accepted (and how many records purged, as `purged`). */
  readonly accepted: Record<string, number>
  /** The events of the run's workspaces and API keys so far, in log order. */
  readonly events: Effect.Effect<ReadonlyArray<StoredEvent>, StorageUnavailable>
  /**
   * The documents storage holds for the run's workspaces, live and in the trash, API keys included:
   * read once per step (invariants share the read); `documentsNow` reads them again.
   */
  readonly documents: Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable>
  readonly documentsNow: Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable>
}

/** The collections a model run compares: every projected one, and the API keys. */
export const MODEL_COLLECTIONS: ReadonlyArray<Collection> = [...recordTypes, "timeline_entry", "deal_standing", "stage_change", "pipeline"]

const all = { where: { _tag: "True" }, sort: { field: { name: "id", type: "id" }, direction: "asc" }, after: null, limit: 10_000 } as const

/** Every document of a collection in a workspace, live then deleted, by id. */
export const documentsOf = (storage: StorageService, collection: Collection, workspaceId: string) =>
  Effect.map(
    Effect.all([
      storage.queryDocuments(collection, workspaceId, { ...all, scope: "live" }),
      storage.queryDocuments(collection, workspaceId, { ...all, scope: "deleted" })
    ]),
    ([live, deleted]) => [...live, ...deleted]
  )

/**
 * A world for one run. `keyIds` is every key stream the run may make; events and documents are read
 * again only after `advance()` (once per step), and the log only after what was read before.
 */
export const makeWorld = <Step>(
  engine: EngineService,
  storage: StorageService,
  workspaces: ReadonlyArray<RequestContext>,
  keyDigest: (n: number) => string,
  keys: number
) => {
  const ids = new Set(workspaces.map((ctx) => ctx.workspaceId))
  const keyStreams = new Set(Array.from({ length: keys }, (_, n) => apiKeyIdOf(keyDigest(n))))
  const events: Array<StoredEvent> = []
  const seen = new Set<string>()
  // Each workspace's log from where the last read ended: a run's workspaces are new, so from the
  // start. Read per workspace, not after a head of the whole log: on Citus each worker numbers
  // its own events, so no one sequence is a position in every workspace's log.
  const readUpTo = new Map<string, ChangeFeedPosition>()
  let documents: ReadonlyArray<StoredDocument> | null = null
  const add = (event: StoredEvent) => {
    const key = `${event.streamId}\u0000${event.streamVersion}`
    if (seen.has(key)) return
    seen.add(key)
    events.push(event)
  }

  const readEvents = Effect.gen(function* () {
    for (const workspaceId of ids) {
      for (;;) {
        const after = readUpTo.get(workspaceId) ?? null
        const batch = yield* storage.readWorkspaceLog({ workspaceId, after, limit: 1_000 })
        for (const { position: _, ...event } of batch) add(event)
        const last = batch.at(-1)?.position ?? after
        if (last !== null) readUpTo.set(workspaceId, last)
        if (batch.length < 1_000) break
      }
    }
    // A key's stream may begin in the system workspace's log (keys made before keys had one).
    for (const streamId of keyStreams) for (const event of yield* storage.readStream(streamId)) add(event)
    return events as ReadonlyArray<StoredEvent>
  })

  const documentsNow = Effect.gen(function* () {
    const out: Array<StoredDocument> = []
    for (const workspaceId of ids) {
      for (const collection of MODEL_COLLECTIONS) out.push(...(yield* documentsOf(storage, collection, workspaceId)))
    }
    const keyDocs = yield* documentsOf(storage, "api_key", SYSTEM_WORKSPACE)
    out.push(...keyDocs.filter((doc) => ids.has(doc.data["workspace_id"] as string)))
    return out as ReadonlyArray<StoredDocument>
  })
  const readDocuments = Effect.suspend(() =>
    documents !== null
      ? Effect.succeed(documents)
      : Effect.tap(documentsNow, (read) =>
          Effect.sync(() => {
            documents = read
          })
        )
  )

  const world: World<Step> = {
    engine,
    storage,
    workspaces,
    ctx: workspaces[0]!,
    made: workspaces.map(() => ({
      contacts: [],
      deals: [],
      companies: [],
      activities: [],
      deletedContacts: [],
      deletedDeals: [],
      deletedCompanies: [],
      deletedActivities: []
    })),
    keyDigest,
    outcomes: [],
    eventsBefore: 0,
    accepted: {},
    events: readEvents,
    documents: readDocuments,
    documentsNow
  }
  return {
    world,
    /** A step ran: documents are read afresh when next asked for. */
    advance: () => {
      documents = null
    }
  }
}
