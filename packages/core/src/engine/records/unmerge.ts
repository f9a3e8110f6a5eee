import { Effect, Result } from "effect"
import type { Projected } from "../../decider.js"
import { NotFound, ValidationError } from "../../errors.js"
import { isJsonObject, type Json, type JsonObject } from "../../json.js"
import { type MovedLinks, oneTime, relinked, unmergedFields } from "../../record/merge.js"
import type { Collection } from "../../storage/documents.js"
import { type EngineDeps, nowIso } from "../base/deps.js"
import { catalogs, settingsOf } from "../base/settings.js"
import { storableBody } from "../base/storable.js"
import { type PlannedWrite, write } from "../commands/handleCommand.js"
import type { RequestContext, WriteError } from "../contract/Engine.js"
import type { Mergeable } from "./merge.js"
import { commitPlanned } from "./mergeCommit.js"

const same = (a: Json | undefined, b: Json | undefined) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

/**
 * The undoing of one merged record within the trash window (API.md, "Merge and duplicates"): it
 * comes back exactly as it was; the survivor gives back the values it took only from it and not
 * changed since; each record whose links the merge moved from it, and whose links nobody changed
 * since, links it again as before (less the records still merged). One commit, like the merge; a
 * unique key taken meanwhile is 409.
 */
export const makeUnmerge = (deps: EngineDeps, mergeable: Mergeable) => {
  const { aggregate, rules } = mergeable
  const name = aggregate.name
  const key = `${name}_id`

  /** POST /v1/<records>/:id/unmerge `{<type>_id}` → `{<type>: the survivor, restored: the record back}`. */
  const unmerge = (ctx: RequestContext, id: string, body: unknown): Effect.Effect<JsonObject, WriteError> =>
    Effect.gen(function* () {
      const input = yield* storableBody(body)
      if (!isJsonObject(input) || typeof input[key] !== "string" || input[key] === "" || Object.keys(input).some((k) => k !== key)) {
        return yield* ValidationError.at(
          isJsonObject(input) && typeof input[key] === "string" ? "" : key,
          `must be {"${key}": "…"}, a ${name} merged into ${id}`
        )
      }
      const restoredId = input[key]
      const catalog = mergeable.shown.catalog(yield* catalogs(deps, ctx))
      const { idempotency: claim, ...unclaimed } = ctx
      for (let attempt = 1; ; attempt++) {
        // One time for every event of the commit (as-of reads see all of it or none), never before a stream's last event.
        const shared = yield* nowIso
        // What the merge recorded: the links it moved from the record, the survivor's provenance.
        const restoredEvents = yield* deps.storage.readStream(restoredId, 0, ctx.workspaceId)
        const mergedInto = [...restoredEvents].reverse().find((e) => e.type === `${name}.merged_into`)
        const survivorEvents = yield* deps.storage.readStream(id, 0, ctx.workspaceId)
        const mergedEvent = [...survivorEvents]
          .reverse()
          .find((e) => e.type === `${name}.merged` && ((e.data as JsonObject)["merged_ids"] as ReadonlyArray<string>).includes(restoredId))
        if (mergedInto === undefined || mergedEvent === undefined || (mergedInto.data as JsonObject)["into"] !== id) {
          return yield* ValidationError.at(key, `must be a ${name} merged into ${id} within the last 30 days`)
        }
        const merge = mergedEvent.data as JsonObject
        const movedLinks = ((mergedInto.data as JsonObject)["moved"] ?? []) as unknown as ReadonlyArray<MovedLinks>
        // The other records of that merge still merged into the survivor, in the merge's order.
        const others: Array<{ readonly id: string; readonly fields: JsonObject }> = []
        for (const otherId of merge["merged_ids"] as ReadonlyArray<string>) {
          if (otherId === restoredId) continue
          const doc = yield* deps.storage.getDocument(name as Collection, ctx.workspaceId, otherId)
          if (doc !== null && doc.deletedAt !== null && doc.data["merged_into"] === id) others.push({ id: otherId, fields: doc.data })
        }
        const still = new Set(others.map((other) => other.id))
        const settings = settingsOf(deps.storage, deps.settings, ctx, true)
        const planned: Array<PlannedWrite<Projected | null>> = []
        let restoredFields: JsonObject = {}
        const restored = yield* Effect.result(
          write(
            deps,
            aggregate,
            {
              ...mergeable.writes.commandOn(unclaimed, restoredId),
              command: ({ lastAt, projected }) => {
                const at = oneTime(shared, lastAt)
                restoredFields = projected?.data ?? {}
                return Effect.succeed({ type: "Unmerge", id: restoredId, at, into: id, restoredId, fields: {} })
              }
            },
            (outcome) => Effect.succeed(outcome.projected)
          ).plan(settings)
        )
        if (Result.isFailure(restored)) {
          if (restored.failure._tag === "NotFound")
            return yield* ValidationError.at(key, `must be a ${name} merged into ${id} within the last 30 days`)
          return yield* restored.failure
        }
        planned.push(restored.success)
        const relinkedIds: Array<string> = []
        for (const entry of movedLinks) {
          const link = mergeable.links.find((candidate) => candidate.aggregate.name === entry.type)
          if (link === undefined) continue
          const plan = yield* Effect.result(
            write(
              deps,
              link.aggregate,
              {
                ...link.commandOn(unclaimed, entry.id),
                command: ({ lastAt, projected }) => {
                  const at = oneTime(shared, lastAt)
                  const data = projected?.data ?? {}
                  // Links changed since the merge stay where they are now.
                  const untouched = Object.entries(entry.after).every(([field, value]) => same(data[field], value))
                  const fields = untouched ? relinked(entry.before, link.fields, still, id) : {}
                  const back = untouched
                    ? Object.fromEntries(Object.keys(entry.after).map((field) => [field, fields[field] ?? entry.before[field] ?? null]))
                    : {}
                  return Effect.succeed({ type: "Relink", id: entry.id, at, fields: back })
                }
              },
              () => Effect.succeed(null)
            ).plan(settings)
          )
          if (Result.isFailure(plan)) {
            if (plan.failure._tag === "NotFound") continue
            return yield* plan.failure
          }
          if (plan.success.commit !== null) relinkedIds.push(entry.id)
          planned.push(plan.success)
        }
        // The survivor as announced, from a view read before the commit: without the links the commit gives back.
        const withoutBack = (shown: JsonObject): JsonObject => {
          const out: Record<string, Json> = { ...shown }
          for (const link of mergeable.links) {
            const value = shown[link.moved]
            const back = new Set(
              movedLinks.filter((entry) => entry.type === link.aggregate.name && relinkedIds.includes(entry.id)).map((entry) => entry.id)
            )
            if (Array.isArray(value)) out[link.moved] = value.filter((linked) => typeof linked !== "string" || !back.has(linked))
          }
          return out
        }
        const survivor = yield* write(
          deps,
          aggregate,
          {
            ...mergeable.writes.commandOn(unclaimed, id, withoutBack),
            command: ({ lastAt, projected }) =>
              Effect.succeed({
                type: "Unmerge",
                id,
                at: oneTime(shared, lastAt),
                into: id,
                restoredId,
                fields: unmergedFields(
                  projected?.data ?? {},
                  {
                    changed: merge["changed"] as JsonObject,
                    from: (merge["from"] ?? {}) as { readonly [field: string]: string },
                    before: (merge["before"] ?? {}) as JsonObject
                  },
                  { id: restoredId, fields: restoredFields },
                  others,
                  rules
                )
              })
          },
          (outcome) => Effect.succeed(outcome.projected)
        ).plan(settings)
        planned.push(survivor)
        const outcome = yield* commitPlanned(deps, ctx, planned, {
          claim,
          applied: { resource: name, id },
          attempt,
          doing: "unmerge",
          uniqueKeyTaken: restored.success.uniqueKeyTaken
        })
        if (outcome === "retry") continue
        const [after, back] = yield* Effect.all([survivor.answer, restored.success.answer])
        if (after === null || back === null) return yield* new NotFound({ resource: name, id })
        const [shownSurvivor, shownRestored] = yield* mergeable.shown.views(
          ctx,
          [
            { id, data: after.data },
            { id: restoredId, data: back.data }
          ],
          catalog
        )
        return { [name]: shownSurvivor!, restored: shownRestored!, relinked_ids: relinkedIds } satisfies JsonObject
      }
    })

  return { unmerge }
}
