import { Effect, Result } from "effect"
import type { Aggregate } from "../../aggregate.js"
import type { Projected } from "../../decider.js"
import { Conflict, NotFound, ValidationError } from "../../errors.js"
import type { Json, JsonObject } from "../../json.js"
import type { Expr } from "../../query/ast.js"
import { type LinkField, type MergeRules, type MovedLinks, mergedFields, notMerged, oneTime, relinked } from "../../record/merge.js"
import { parseMergeInput } from "../../record/mergeInput.js"
import type { Collection } from "../../storage/documents.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import { queryAll } from "../base/reads.js"
import { catalogs, settingsOf } from "../base/settings.js"
import { storableBody } from "../base/storable.js"
import { type PlannedWrite, write } from "../commands/handleCommand.js"
import type { RequestContext, WriteError } from "../contract/Engine.js"
import { commitPlanned } from "./mergeCommit.js"
import type { RecordWrites } from "./recordService.js"
import type { TrashShown } from "./trash.js"

/**
 * Merging duplicates (API.md, "Merge and duplicates"), once for every mergeable record type: the
 * survivor takes the merged records' fields (record/merge.ts), the merged records leave for the
 * trash naming it, and every live record that linked a merged one links the survivor instead. All
 * of it is planned on the streams as stored now and stored in one commit, every stream at the
 * version it was decided on: a concurrent write to any record involved fails the commit, and the
 * whole merge is decided again on what is stored then.
 */

/** A record type whose records link the merged type, and where the answer's `moved` lists them. */
export interface LinkingRecords {
  readonly collection: Collection
  readonly aggregate: Aggregate<any, any, any>
  readonly fields: ReadonlyArray<LinkField>
  /** `deal_ids`: the key of `moved`, and of the survivor's view when it derives the list. */
  readonly moved: string
  readonly commandOn: RecordWrites["commandOn"]
}

/** One mergeable record type: its own service's pieces, the rules of its fields and the records linking it. */
export interface Mergeable {
  readonly aggregate: Aggregate<any, any, any>
  readonly writes: RecordWrites
  readonly shown: TrashShown
  readonly rules: MergeRules
  readonly links: ReadonlyArray<LinkingRecords>
}

/** The live records whose link fields name any of `ids`. */
const linking = (deps: EngineDeps, ctx: RequestContext, link: LinkingRecords, ids: ReadonlyArray<string>) => {
  const where: Expr = {
    _tag: "Or",
    exprs: link.fields.flatMap(
      (field): ReadonlyArray<Expr> =>
        field.type === "id" ? [{ _tag: "In", field, values: [...ids] }] : ids.map((id): Expr => ({ _tag: "HasElement", field, value: id }))
    )
  }
  return queryAll(deps, link.collection, ctx.workspaceId, where)
}

const union = (a: Json | undefined, b: ReadonlyArray<string>): ReadonlyArray<string> => {
  const first = Array.isArray(a) ? a.filter((id): id is string => typeof id === "string") : []
  return [...first, ...b.filter((id) => !first.includes(id))]
}

export const makeMerge = (deps: EngineDeps, mergeable: Mergeable) => {
  const { aggregate, rules } = mergeable

  /**
   * The write that points one record's links at the survivor `into` instead of the records of
   * `from`, at `shared` (or after the record's last event); `seen` is told what it moves.
   */
  const relinkWrite = (
    link: LinkingRecords,
    ctx: RequestContext,
    recordId: string,
    from: ReadonlySet<string>,
    into: string,
    shared: string,
    seen: (moved: MovedLinks) => void = () => {}
  ) =>
    write(
      deps,
      link.aggregate,
      {
        ...link.commandOn(ctx, recordId),
        command: ({ lastAt, projected }) => {
          const at = oneTime(shared, lastAt)
          const data = projected?.data ?? {}
          const patch = relinked(data, link.fields, from, into)
          seen({
            type: link.aggregate.name,
            id: recordId,
            before: Object.fromEntries(Object.keys(patch).map((key) => [key, data[key] ?? null])),
            after: patch
          })
          return Effect.succeed({ type: "Relink", id: recordId, at, fields: patch })
        }
      },
      () => Effect.succeed(null)
    )

  const name = aggregate.name
  const linkNames = new Set(rules.unions.flatMap((link) => [link.array, ...(link.primary === undefined ? [] : [link.primary])]))

  /**
   * POST /v1/<records>/:id/merge: `{merge_ids, prefer?, dry_run?}` → `{<name>, merged_ids, moved}`.
   * A dry run decides the same and stores nothing.
   */
  const merge = (ctx: RequestContext, id: string, body: unknown): Effect.Effect<JsonObject, WriteError> =>
    Effect.gen(function* () {
      const input = yield* storableBody(body)
      const catalog = mergeable.shown.catalog(yield* catalogs(deps, ctx))
      const preferable = new Set(
        [...catalog.values()]
          .filter(
            (info) => info.derived === undefined && !notMerged.has(info.name) && info.name !== rules.unique && !linkNames.has(info.name)
          )
          .map((info) => info.name)
      )
      const parsed = parseMergeInput(input, id, name, preferable)
      if (Result.isFailure(parsed)) return yield* parsed.failure
      const { dryRun, mergeIds, prefer } = parsed.success
      // One claim of the Idempotency-Key for the whole merge, in its one commit.
      const { idempotency: claim, ...unclaimed } = ctx
      for (let attempt = 1; ; attempt++) {
        // One time for every event of the commit (as-of reads see all of it or none), never before a stream's last event.
        const shared = yield* nowIso
        const settings = settingsOf(deps.storage, deps.settings, ctx, true)
        const planned: Array<PlannedWrite<Projected | null>> = []
        const moved: Record<string, Json> = {}
        const movedFrom = new Map<string, Array<MovedLinks>>(mergeIds.map((mergedId) => [mergedId, []]))
        const from = new Set(mergeIds)
        // The links first: each merged record's event keeps those moved from it, for an unmerge.
        for (const link of mergeable.links) {
          const records = yield* linking(deps, unclaimed, link, mergeIds)
          const changed: Array<string> = []
          for (const record of records) {
            let entry: MovedLinks | null = null
            const plan = yield* Effect.result(
              relinkWrite(link, unclaimed, record.id, from, id, shared, (made) => {
                entry = made
              }).plan(settings)
            )
            // Purged since the query: it links nothing.
            if (Result.isFailure(plan)) {
              if (plan.failure._tag === "NotFound") continue
              return yield* plan.failure
            }
            if (plan.success.commit === null || entry === null) continue
            const kept: MovedLinks = entry
            changed.push(record.id)
            planned.push(plan.success)
            const named = (mergedId: string) =>
              Object.values(kept.before).some((value) => value === mergedId || (Array.isArray(value) && value.includes(mergedId)))
            for (const mergedId of mergeIds) if (named(mergedId)) movedFrom.get(mergedId)!.push(kept)
          }
          moved[link.moved] = changed
        }
        const merged: Array<{ readonly id: string; readonly fields: JsonObject }> = []
        for (const [i, mergedId] of mergeIds.entries()) {
          const plan = yield* Effect.result(
            write(
              deps,
              aggregate,
              {
                ...mergeable.writes.commandOn(unclaimed, mergedId),
                command: ({ lastAt, projected }) => {
                  const at = oneTime(shared, lastAt)
                  merged.push({ id: mergedId, fields: projected?.data ?? {} })
                  return Effect.succeed({ type: "MergeInto", id: mergedId, at, into: id, moved: movedFrom.get(mergedId) ?? [] })
                }
              },
              (outcome) => Effect.succeed(outcome.projected)
            ).plan(settings)
          )
          if (Result.isFailure(plan)) {
            if (plan.failure._tag === "NotFound")
              return yield* ValidationError.at(`merge_ids[${i}]`, `must be a live ${name} of the workspace`)
            return yield* plan.failure
          }
          planned.push(plan.success)
        }
        // The survivor as announced, from a view read before the commit: with the links the commit moves to it.
        const withMoved = (shown: JsonObject): JsonObject => {
          const out: Record<string, Json> = { ...shown }
          for (const link of mergeable.links)
            if (Array.isArray(shown[link.moved]))
              out[link.moved] = [...union(shown[link.moved], moved[link.moved] as ReadonlyArray<string>)]
          return out
        }
        let before: JsonObject = {}
        const survivor = yield* write(
          deps,
          aggregate,
          {
            ...mergeable.writes.commandOn(unclaimed, id, withMoved),
            command: ({ lastAt, projected }) => {
              const at = oneTime(shared, lastAt)
              before = projected?.data ?? {}
              const decided = mergedFields({ id, fields: before }, merged, prefer, rules)
              return Effect.succeed({
                type: "Absorb",
                id,
                at,
                mergedIds: [...mergeIds],
                fields: decided.patch,
                from: decided.from,
                before: decided.before
              })
            }
          },
          (outcome) => Effect.succeed(outcome.projected)
        ).plan(settings)
        planned.push(survivor)
        for (const link of rules.unions) {
          const had = union(before[link.array], [])
          moved[link.array] = union(
            [],
            merged.flatMap((record) => union(record.fields[link.array], []))
          ).filter((linked) => !had.includes(linked))
        }
        if (!dryRun) {
          const outcome = yield* commitPlanned(deps, ctx, planned, {
            claim,
            applied: { resource: name, id },
            attempt,
            doing: "merge",
            uniqueKeyTaken: (error) => new Conflict({ message: `a unique key is already taken by ${error.existingId}`, details: [] })
          })
          if (outcome === "retry") continue
          // Links stored between the query above and the commit: their writes found the merged
          // records live before it, and none can be stored after it (base/linkGuards.ts). Each is
          // re-pointed now, on its own; an unmerge leaves it with the survivor.
          for (const link of mergeable.links) {
            for (const record of yield* linking(deps, unclaimed, link, mergeIds)) {
              const relinkedLate = yield* Effect.result(relinkWrite(link, unclaimed, record.id, from, id, yield* nowIso).run)
              if (Result.isFailure(relinkedLate)) {
                if (relinkedLate.failure._tag === "NotFound") continue
                return yield* relinkedLate.failure
              }
              moved[link.moved] = [...(moved[link.moved] as ReadonlyArray<string>), record.id]
            }
          }
        }
        const after = yield* survivor.answer
        if (after === null) return yield* new NotFound({ resource: name, id })
        const view = yield* mergeable.writes.view(ctx, id, after.data, catalog)
        // Stored, the view derives the moved links itself; a dry run's storage still has them elsewhere.
        const shown = dryRun ? withMoved(view) : view
        return { [name]: shown, merged_ids: [...mergeIds], moved } satisfies JsonObject
      }
    })

  return { merge }
}
