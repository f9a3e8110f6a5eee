import { Effect } from "effect"
import { defaultPipelineCommand, pipelineAggregate } from "../../pipeline/index.js"
import { workspaceAggregate, workspaceStreamId } from "../../workspace/index.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"
import { decide, newStream } from "../commands/decide.js"
import { readState } from "../base/streamStates.js"

/**
 * Gives a workspace its default "Sales" pipeline the first time its pipelines are listed, or a new
 * pipeline is accepted: nothing else needs it (a deal names a pipeline the client found in that
 * list), and a refused request (a 4xx) never gets this far, so it changes nothing, even as a
 * workspace's first request. The workspace's initialisation and the pipeline are committed together,
 * the first at version 0 of the workspace's stream, so when several hosts race, exactly one pipeline
 * is created and the losers simply find the workspace initialised. This commit is no write of the
 * request's own: it records no Idempotency-Key.
 */
export const makeWorkspaces = (deps: EngineDeps) => {
  const initialised = new Set<string>()

  const initialise = (ctx: RequestContext) =>
    Effect.gen(function* () {
      const streamId = workspaceStreamId(ctx.workspaceId)
      const workspace = yield* readState(deps.storage, workspaceAggregate, ctx, streamId)
      if (workspace.version !== 0) return
      const at = yield* nowIso
      const pipelineId = yield* deps.ids.make(pipelineAggregate.prefix)
      const stageIds: Array<string> = []
      for (let i = 0; i < 6; i++) stageIds.push(yield* deps.ids.make("stage"))
      // New streams: nothing can refuse these commands.
      const pipeline = yield* decide(
        deps,
        pipelineAggregate,
        newStream(pipelineAggregate, ctx, pipelineId),
        defaultPipelineCommand(pipelineId, stageIds, at)
      ).pipe(Effect.orDie)
      const initialized = yield* decide(deps, workspaceAggregate, newStream(workspaceAggregate, ctx, streamId), {
        type: "InitializeWorkspace",
        defaultPipelineId: pipelineId,
        at
      }).pipe(Effect.orDie)
      yield* deps.storage
        .commit({ streams: [initialized.append, pipeline.append], documents: pipeline.documents })
        .pipe(Effect.catchTags({ VersionConflict: () => Effect.void, UniqueViolation: () => Effect.void }))
    })

  return {
    ensure: (ctx: RequestContext) =>
      initialised.has(ctx.workspaceId)
        ? Effect.void
        : Effect.tap(initialise(ctx), () => Effect.sync(() => initialised.add(ctx.workspaceId)))
  }
}

export type Workspaces = ReturnType<typeof makeWorkspaces>
