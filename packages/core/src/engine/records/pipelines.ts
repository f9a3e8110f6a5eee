import { Effect, Result } from "effect"
import { NotFound } from "../../errors.js"
import {
  parsePipelineCreate,
  parsePipelinePatch,
  pipelineAggregate,
  pipelineInfoOf,
  pipelineView,
  type StageInput
} from "../../pipeline/index.js"
import type { EngineDeps } from "../base/deps.js"
import type { IfMatch, RequestContext } from "../contract/Engine.js"
import { handleCommand } from "../commands/handleCommand.js"
import { existsWhere, queryAll } from "../base/reads.js"
import { storableBody } from "../base/storable.js"
import type { Workspaces } from "./workspace.js"

const stageField = { name: "stage_id", type: "id" } as const

export const makePipelines = (deps: EngineDeps, workspaces: Workspaces) => {
  const get = (ctx: RequestContext, id: string) =>
    Effect.gen(function* () {
      const doc = yield* deps.storage.getDocument("pipeline", ctx.workspaceId, id)
      if (doc === null) return yield* new NotFound({ resource: "pipeline", id })
      return { data: pipelineView(doc.data), version: doc.version }
    })

  const list = (ctx: RequestContext) =>
    Effect.gen(function* () {
      yield* workspaces.ensure(ctx)
      const docs = yield* queryAll(deps, "pipeline", ctx.workspaceId, { _tag: "True" })
      return { data: docs.map((d) => pipelineView(d.data)), next_cursor: null }
    })

  const create = (ctx: RequestContext, body: unknown) =>
    Effect.gen(function* () {
      const parsed = parsePipelineCreate(yield* storableBody(body))
      if (Result.isFailure(parsed)) return yield* parsed.failure
      // Accepted: the workspace gets its default pipeline first, so "Sales" stays the first one.
      yield* workspaces.ensure(ctx)
      const id = yield* deps.ids.make(pipelineAggregate.prefix)
      const stages: Array<StageInput> = []
      for (const stage of parsed.success.stages) stages.push({ ...stage, id: yield* deps.ids.make("stage") })
      yield* handleCommand(deps, pipelineAggregate, {
        ctx,
        streamId: id,
        stream: "new",
        command: ({ at }) => Effect.succeed({ type: "CreatePipeline" as const, id, at, name: parsed.success.name, stages })
      })
      return yield* get(ctx, id)
    })

  const update = (ctx: RequestContext, id: string, body: unknown, ifMatch: IfMatch) =>
    Effect.gen(function* () {
      const parsed = parsePipelinePatch(yield* storableBody(body))
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const knownNewStageIds = new Set<string>()
      const stages: ReadonlyArray<StageInput> | undefined =
        parsed.success.stages === undefined
          ? undefined
          : yield* Effect.forEach(parsed.success.stages, ({ id, ...stage }) =>
              id !== null
                ? Effect.succeed({ ...stage, id })
                : Effect.map(deps.ids.make("stage"), (newId) => {
                    knownNewStageIds.add(newId)
                    return { ...stage, id: newId }
                  })
            )
      yield* handleCommand(deps, pipelineAggregate, {
        ctx,
        streamId: id,
        ifMatch,
        command: ({ state, at }) =>
          Effect.gen(function* () {
            // A stage may only go when no deal sits in it, counting deals in the trash: a restored deal
            // must come back to a stage that still exists.
            const stagesHoldingDeals = new Set<string>()
            const current = pipelineInfoOf(state)
            if (stages !== undefined && current !== null) {
              const kept = new Set(stages.map((s) => s.id))
              for (const stage of current.stages) {
                if (kept.has(stage.id)) continue
                const inStage = { _tag: "Compare", field: stageField, op: "eq", value: stage.id } as const
                const held =
                  (yield* existsWhere(deps, "deal", ctx.workspaceId, inStage)) ||
                  (yield* existsWhere(deps, "deal", ctx.workspaceId, inStage, "deleted"))
                if (held) stagesHoldingDeals.add(stage.id)
              }
            }
            return {
              type: "UpdatePipeline" as const,
              id,
              at,
              ...(parsed.success.name === undefined ? {} : { name: parsed.success.name }),
              ...(stages === undefined ? {} : { stages }),
              knownNewStageIds,
              stagesHoldingDeals
            }
          })
      })
      return yield* get(ctx, id)
    })

  return { list, get, create, update }
}
