import { Effect } from "effect"
import { defaultPipelineCommand, pipelineAggregate } from "../pipeline/index.js"
import { type EngineDeps, nowIso, withMetadata } from "./deps.js"
import type { RequestContext } from "./Engine.js"
import { decide, newStream } from "./handleCommand.js"

export const workspaceStreamId = (workspaceId: string) => `ws_${workspaceId}`

/**
 * Gives a workspace its default "Sales" pipeline the first time its pipelines are listed, or a new
 * pipeline is accepted: nothing else needs it (a deal names a pipeline the client found in that
 * list), and a refused request (a 4xx) never gets this far, so it changes nothing, even as a
 * workspace's first request. The workspace stream and the pipeline are committed together at
 * expected version 0, so when several hosts race, exactly one pipeline is created and the losers
 * simply find the workspace initialised.
 */
export const makeWorkspaces = (deps: EngineDeps) => {
  const initialised = new Set<string>()

  const initialise = (ctx: RequestContext) =>
    Effect.gen(function*() {
      const existing = yield* deps.storage.readStream(workspaceStreamId(ctx.workspaceId))
      if (existing.length > 0) return
      const at = yield* nowIso
      const pipelineId = yield* deps.ids.make(pipelineAggregate.prefix)
      const stageIds: Array<string> = []
      for (let i = 0; i < 6; i++) stageIds.push(yield* deps.ids.make("stage"))
      // A new stream: nothing can refuse it.
      const pipeline = yield* decide(deps, pipelineAggregate, newStream(ctx, pipelineId), defaultPipelineCommand(pipelineId, stageIds, at))
        .pipe(Effect.orDie)
      const initialized = yield* withMetadata(deps, ctx, [
        { type: "workspace.initialized", data: { default_pipeline_id: pipelineId, at } }
      ])
      yield* deps.storage.commit({
        streams: [
          { streamId: workspaceStreamId(ctx.workspaceId), expectedVersion: 0, events: initialized },
          pipeline.append
        ],
        documents: pipeline.documents
      }).pipe(Effect.catchTags({ VersionConflict: () => Effect.void, UniqueViolation: () => Effect.void }))
    })

  return {
    ensure: (ctx: RequestContext) =>
      initialised.has(ctx.workspaceId)
        ? Effect.void
        : Effect.tap(initialise(ctx), () => Effect.sync(() => initialised.add(ctx.workspaceId)))
  }
}

export type Workspaces = ReturnType<typeof makeWorkspaces>
