import { Effect } from "effect"
import type { ContactEvent } from "../contact/index.js"
import { type CustomFieldDefinition, type CustomFieldEvent, customFieldDecider } from "../customField/index.js"
import type { DealEvent } from "../deal/index.js"
import type { PipelineEvent } from "../pipeline/index.js"
import { searchFieldsOf } from "../query/documentSearchWords.js"
import { catalogOf } from "../query/fields.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { StoredEvent } from "../storage/events.js"
import { Storage } from "../storage/Storage.js"
import { customFieldStreamId } from "./customFields.js"
import { contactDocuments, dealDocuments, pipelineDocuments, projectedCollections } from "./documents.js"

const BATCH = 5_000

export interface RebuildProgress {
  readonly events: number
  readonly totalEvents: number
}

export interface RebuildResult {
  readonly events: number
  readonly streams: number
  readonly documents: number
}

/**
 * Rebuilds every projected document from the event log with the same projection code the command
 * path uses, then swaps them in atomically. Purged streams produce nothing: their data is redacted and
 * their documents are gone by design.
 */
export const rebuildDocuments = (onProgress: (progress: RebuildProgress) => void = () => {}) =>
  Effect.gen(function*() {
    const storage = yield* Storage
    const totalEvents = yield* storage.headSequence
    const streams = new Map<string, Array<StoredEvent>>()
    let after = 0
    let events = 0
    for (;;) {
      const batch = yield* storage.readLog({ after, limit: BATCH })
      for (const event of batch) {
        let stream = streams.get(event.streamId)
        if (stream === undefined) {
          stream = []
          streams.set(event.streamId, stream)
        }
        stream.push(event)
      }
      events += batch.length
      const last = batch[batch.length - 1]
      if (last === undefined) break
      after = last.sequence
      onProgress({ events, totalEvents: Math.max(totalEvents, events) })
      if (batch.length < BATCH) break
    }

    const definitions = new Map<string, ReadonlyArray<CustomFieldDefinition>>()
    const definitionsOf = (workspaceId: string) => {
      let defs = definitions.get(workspaceId)
      if (defs === undefined) {
        const stream = (streams.get(customFieldStreamId(workspaceId)) ?? []) as unknown as ReadonlyArray<CustomFieldEvent>
        defs = stream.reduce(customFieldDecider.evolve, customFieldDecider.initialState).definitions
        definitions.set(workspaceId, defs)
      }
      return defs
    }

    const writes: Array<DocumentWrite> = []
    for (const [streamId, stored] of streams) {
      if (stored.some((event) => event.type.endsWith(".purged"))) continue
      const workspaceId = stored[0]!.metadata.workspaceId
      const version = stored.length
      if (streamId.startsWith("con_")) {
        const all = stored as unknown as ReadonlyArray<ContactEvent>
        const search = searchFieldsOf(catalogOf("contact", definitionsOf(workspaceId)))
        writes.push(...contactDocuments(workspaceId, streamId, search)(all, all, version))
      } else if (streamId.startsWith("deal_")) {
        const all = stored as unknown as ReadonlyArray<DealEvent>
        const search = searchFieldsOf(catalogOf("deal", definitionsOf(workspaceId)))
        writes.push(...dealDocuments(workspaceId, streamId, search)(all, all, version))
      } else if (streamId.startsWith("pipe_")) {
        const all = stored as unknown as ReadonlyArray<PipelineEvent>
        writes.push(...pipelineDocuments(workspaceId, streamId)(all, all, version))
      }
    }
    yield* storage.replaceDocuments(projectedCollections, writes)
    return { events, streams: streams.size, documents: writes.length } satisfies RebuildResult
  })
