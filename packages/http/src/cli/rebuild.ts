import { rebuildDocuments, type RebuildResult } from "@dealstream/core"
import { Cause, Effect, Exit } from "effect"
import { type StorageChoice, StorageInUse, storageLayer } from "../host/storage.js"
import { progress, type ProgressOutput } from "./progress.js"

export interface RebuildOutcome extends RebuildResult {
  readonly storage: string
  readonly millis: number
}

/** A failed rebuild, worded for one line. */
export class RebuildFailed extends Error {}

/**
 * Rebuilds every document table from the event log (`dealstream rebuild`), drawing progress on
 * `output`. The documents are swapped in one transaction at the end, so readers see either the old
 * or the new documents; writes committed by a running host during the rebuild may be overwritten
 * by their older projection, hence: stop the hosts first.
 */
export const rebuild = async (choice: StorageChoice, output: ProgressOutput): Promise<RebuildOutcome> => {
  const started = performance.now()
  const bar = progress(output, "rebuilding", "events")
  const program = Effect.gen(function* () {
    const { description } = yield* StorageInUse
    output.write(`rebuilding documents from the events in ${description}\n`)
    const result = yield* rebuildDocuments(({ events, totalEvents }) => bar.update(events, totalEvents))
    bar.finish()
    return { ...result, storage: description, millis: performance.now() - started }
  }).pipe(Effect.provide(storageLayer(choice)))

  const exit = await Effect.runPromiseExit(program)
  if (Exit.isSuccess(exit)) return exit.value
  bar.finish()
  const failure = exit.cause.reasons.find(Cause.isFailReason)?.error ?? exit.cause.reasons.find(Cause.isDieReason)?.defect
  const message = failure instanceof Error ? failure.message : String(failure)
  throw new RebuildFailed(message.split("\n")[0]!.trim())
}

export const summary = (outcome: RebuildOutcome): string =>
  `rebuilt ${outcome.documents} documents from ${outcome.events} events in ${outcome.streams} streams (${(outcome.millis / 1000).toFixed(1)} s)`
