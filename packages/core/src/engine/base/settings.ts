import { Cause, Duration, Effect, Result, Stream } from "effect"
import { customFieldAggregate, customFieldStreamId } from "../../customField/index.js"
import type { CustomFieldDefinition } from "../../field/custom.js"
import type { StorageUnavailable, ValidationError } from "../../errors.js"
import type { RecordParser } from "../../field/recordBody.js"
import type { JsonObject } from "../../json.js"
import { pipelineAggregate, type PipelineInfo, pipelineInfoOf } from "../../pipeline/index.js"
import { catalogOf, type FieldCatalog } from "../../query/fields.js"
import { type RecordType, recordTypes } from "../../recordTypes.js"
import type { StoredDocument } from "../../storage/documents.js"
import type { SettingsRead, StorageService } from "../../storage/Storage.js"
import { BoundedCache } from "./boundedCache.js"
import type { RequestContext } from "../contract/Engine.js"
import { queryAll } from "./reads.js"
import { readState } from "./streamStates.js"

/** A workspace's custom field definitions and the field catalogs of each record type built from them. */
export type Catalogs = { readonly defs: ReadonlyArray<CustomFieldDefinition> } & { readonly [T in RecordType]: FieldCatalog }

/**
 * What a host holds of one workspace's settings, all as of one settings version: parts are read the
 * first time they are needed. A part read after the version may be newer than it, never older (the
 * version is read first), so a decision on it can only fail the commit's check, never slip through.
 */
interface Entry {
  readonly version: number
  catalogs?: Catalogs
  webhooks?: ReadonlyArray<StoredDocument>
  readonly pipelines: Map<string, PipelineInfo | null>
}

/**
 * The settings every contact and deal command reads (the custom field catalog, the pipelines, the
 * active webhooks), per workspace, for at most 1,000 workspaces. Kept fresh by the storage's change
 * signals; correct without them, because writes commit against the version they read (the commit
 * fails if it moved on) and reads check the version first.
 */
export type SettingsCache = BoundedCache<string, Entry>

export const makeSettingsCache = (capacity = 1_000): SettingsCache => new BoundedCache(capacity)

/** One command attempt's or one read's view of a workspace's settings. */
export interface Settings {
  readonly catalogs: Effect.Effect<Catalogs, StorageUnavailable>
  /** The pipeline's stages; null when it is not a live pipeline of this workspace. */
  readonly pipeline: (id: string) => Effect.Effect<PipelineInfo | null, StorageUnavailable>
  readonly activeWebhooks: Effect.Effect<ReadonlyArray<StoredDocument>, StorageUnavailable>
  /**
   * The settings version this view stands at: for a command that reads something of the workspace's
   * settings streams itself (its API keys), so that its commit checks the version as for the parts above.
   */
  readonly version: Effect.Effect<number, StorageUnavailable>
  /** The version the parts used were read at: for the commit to check. Null when none was used. */
  readonly read: () => SettingsRead | null
  /** Whether what was used was checked against the storage's version by this view (not merely kept). */
  readonly verified: () => boolean
}

const activeStatus = { _tag: "Compare", field: { name: "status", type: "enum" }, op: "eq", value: "active" } as const

/**
 * A view of the workspace's settings. With `verify`, the first use reads the settings version and
 * drops what the host kept if it moved on (a read; or a command deciding again after a refusal);
 * without, a kept entry is used as it is and the commit checks its version. A version the caller
 * read itself (with the record, in the same statement: storage.readRecord) verifies without a read.
 */
export const settingsOf = (
  storage: StorageService,
  cache: SettingsCache,
  ctx: RequestContext,
  verify: boolean | { readonly version: number }
): Settings => {
  const workspaceId = ctx.workspaceId
  let entry: Entry | undefined
  let verified = false
  const current: Effect.Effect<Entry, StorageUnavailable> = Effect.suspend(() => {
    if (entry !== undefined) return Effect.succeed(entry)
    const kept = cache.get(workspaceId)
    if (kept !== undefined && verify === false) {
      entry = kept
      return Effect.succeed(kept)
    }
    const verifiedAt = (version: number) => {
      verified = true
      entry = kept !== undefined && kept.version === version ? kept : { version, pipelines: new Map() }
      // Never an older version over a newer one: a read served by a replica may see the settings
      // as they were before what this host already decided on. Such a read uses its own entry.
      if (kept === undefined || kept.version <= version) cache.set(workspaceId, entry)
      return entry
    }
    return typeof verify === "object"
      ? Effect.succeed(verifiedAt(verify.version))
      : Effect.map(storage.settingsVersion(workspaceId), verifiedAt)
  })

  const catalogs = Effect.flatMap(current, (e) =>
    e.catalogs !== undefined
      ? Effect.succeed(e.catalogs)
      : Effect.map(readState(storage, customFieldAggregate, ctx, customFieldStreamId(workspaceId)), ({ state }) => {
          const defs = state.definitions
          const byType = Object.fromEntries(recordTypes.map((type) => [type, catalogOf(type, defs)])) as {
            readonly [T in RecordType]: FieldCatalog
          }
          const known: Catalogs = { defs, ...byType }
          e.catalogs = known
          return known
        })
  )

  const pipeline = (id: string) =>
    Effect.flatMap(current, (e) => {
      const known = e.pipelines.get(id)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.map(readState(storage, pipelineAggregate, ctx, id), (stream) => {
        const info = stream.version > 0 ? pipelineInfoOf(stream.state) : null
        // Ids named by clients are kept only when they name a pipeline: no growth from made-up ones.
        if (info !== null) e.pipelines.set(id, info)
        return info
      })
    })

  const activeWebhooks = Effect.flatMap(current, (e) =>
    e.webhooks !== undefined
      ? Effect.succeed(e.webhooks)
      : Effect.map(queryAll({ storage }, "webhook", workspaceId, activeStatus), (webhooks) => {
          e.webhooks = webhooks
          return webhooks
        })
  )

  return {
    catalogs,
    pipeline,
    activeWebhooks,
    version: Effect.map(current, (e) => e.version),
    read: () => (entry === undefined ? null : { workspaceId, version: entry.version }),
    verified: () => verified
  }
}

/**
 * Follows the storage's settings changes into the cache while the scope lasts: a changed workspace
 * is dropped, everything after a gap in listening. When the signals fail, the cache is emptied and
 * listening starts again a second later.
 */
export const followSettingsChanges = (storage: StorageService, cache: SettingsCache) =>
  Effect.forkScoped(
    Effect.forever(
      storage.settingsChanges.pipe(
        Stream.runForEach((change) => Effect.sync(() => (change._tag === "Changed" ? cache.delete(change.workspaceId) : cache.clear()))),
        Effect.catchCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.void)),
        Effect.andThen(Effect.sync(() => cache.clear())),
        Effect.andThen(Effect.sleep(Duration.seconds(1)))
      )
    )
  )

/** A request body parsed against the workspace's custom field catalog, with the catalogs it was parsed by. */
export const parsedWith =
  (parse: RecordParser, input: unknown) =>
  (settings: Settings): Effect.Effect<{ readonly known: Catalogs; readonly fields: JsonObject }, ValidationError | StorageUnavailable> =>
    Effect.flatMap(settings.catalogs, (known) => {
      const fields = parse(input, known.defs)
      return Result.isFailure(fields) ? Effect.fail(fields.failure) : Effect.succeed({ known, fields: fields.success })
    })

/** The catalogs alone, for a command that parses nothing by them but answers with the record. */
export const catalogsOf = (settings: Settings) => settings.catalogs

/**
 * What a record read works with: the definitions, and the catalogs made of them, checked
 * against the workspace's settings version first (a field defined through another host is known).
 */
export const catalogs = (deps: { readonly storage: StorageService; readonly settings: SettingsCache }, ctx: RequestContext) =>
  settingsOf(deps.storage, deps.settings, ctx, true).catalogs
