import { Effect, Result } from "effect"
import { type AnyAggregate, aggregateOf, decodeEvents, isErased, stateOf, streamWorkspace } from "../../aggregate.js"
import { type CustomFieldDefinition, customFieldAggregate, customFieldStreamId } from "../../customField/index.js"
import type { DocumentWrite } from "../../storage/documents.js"
import type { StoredEvent } from "../../storage/events.js"
import { Storage } from "../../storage/Storage.js"
import { aggregates as registered } from "../contract/aggregates.js"
import { RecordTypes } from "../../record/plugin.js"
import { pluginAggregate } from "../../record/pluginAggregate.js"

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

/** The stream's events decoded with its aggregate's Schema; one that does not decode stops the rebuild. */
const decoded = (aggregate: AnyAggregate, stored: ReadonlyArray<StoredEvent>) => {
  const events = decodeEvents(aggregate, stored)
  return Result.isFailure(events) ? Effect.die(events.failure) : Effect.succeed(events.success)
}

/**
 * Rebuilds every projected document from the event log with the same projection code the command
 * path uses, then swaps them in atomically: the documents of every registered aggregate that is
 * `rebuilt`, each stream projected by the aggregate its id names. Purged streams produce nothing:
 * their data is redacted and their documents are gone by design.
 */
export const rebuildDocuments = (onProgress: (progress: RebuildProgress) => void = () => {}, given?: ReadonlyArray<AnyAggregate>) =>
  Effect.gen(function* () {
    const aggregates = given ?? [...registered, ...(yield* RecordTypes).map(pluginAggregate)]
    const storage = yield* Storage
    const totalEvents = yield* storage.eventCount
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

    // The log's order is each stream's order on one server. On Citus a workspace moved to another
    // worker goes on with that worker's range of sequences, which may be lower than its old ones.
    for (const stream of streams.values()) stream.sort((a, b) => a.streamVersion - b.streamVersion)

    // Documents depend on the workspace's custom field definitions (which fields are searched).
    const definitions = new Map<string, ReadonlyArray<CustomFieldDefinition>>()
    const definitionsOf = (workspaceId: string) =>
      Effect.gen(function* () {
        const known = definitions.get(workspaceId)
        if (known !== undefined) return known
        const history = yield* decoded(customFieldAggregate, streams.get(customFieldStreamId(workspaceId)) ?? [])
        const defs = stateOf(customFieldAggregate, history).definitions
        definitions.set(workspaceId, defs)
        return defs
      })

    const rebuilt = aggregates.filter((aggregate) => aggregate.rebuilt)
    const writes: Array<DocumentWrite> = []
    for (const [streamId, stored] of streams) {
      const aggregate = aggregateOf(rebuilt, streamId)
      if (aggregate === undefined || isErased(stored)) continue
      const workspaceId = streamWorkspace(aggregate, stored[0]!)
      const all = yield* decoded(aggregate, stored)
      const stream = { workspaceId, id: streamId, definitions: yield* definitionsOf(workspaceId) }
      writes.push(...aggregate.documents(stream, { before: null, fresh: all, version: stored.length, all }))
    }
    yield* storage.replaceDocuments(
      rebuilt.flatMap((aggregate) => aggregate.collections),
      writes
    )
    return { events, streams: streams.size, documents: writes.length } satisfies RebuildResult
  })
