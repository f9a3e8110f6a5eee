import { Result } from "effect"
import type { Projected } from "../decider.js"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import type { DomainError } from "../errors.js"
import { Conflict, NotFound } from "../errors.js"
import { changedFields } from "../field/changes.js"
import type { Json, JsonObject } from "../json.js"
import { contactIdsOf, withoutContact } from "./links.js"
import type { MovedLinks } from "./merge.js"

/**
 * What every soft-deletable record type shares (contacts, companies, activities): its life from
 * creation through the trash to a restore or a purge, and the document that life projects to. The
 * record's own folder decides what is particular to it (the checks of a create or an update) and
 * leaves the rest to these.
 */

export type RecordState =
  | { readonly status: "absent" }
  | { readonly status: "live"; readonly fields: JsonObject }
  | { readonly status: "deleted"; readonly fields: JsonObject; readonly deletedAt: string; readonly mergedInto?: string }
  | { readonly status: "purged" }

/** A record that exists and is not in the trash. */
export type LiveRecord = Extract<RecordState, { readonly status: "live" }>

/** The events of record type `N` (`contact`): their types are `N.created` and so on. */
export type RecordEvent<N extends string> =
  | { readonly type: `${N}.created`; readonly data: { readonly id: string; readonly fields: JsonObject; readonly at: string } }
  | { readonly type: `${N}.updated`; readonly data: { readonly changed: JsonObject; readonly at: string } }
  | { readonly type: `${N}.deleted` | `${N}.restored` | `${N}.purged` | `${N}.erased`; readonly data: { readonly at: string } }
  | { readonly type: `${N}.contact_unlinked`; readonly data: { readonly contact_id: string; readonly at: string } }
  | {
      readonly type: `${N}.merged`
      readonly data: {
        readonly merged_ids: ReadonlyArray<string>
        readonly changed: JsonObject
        readonly at: string
        readonly from?: { readonly [field: string]: string }
        readonly before?: JsonObject
      }
    }
  | {
      readonly type: `${N}.merged_into`
      readonly data: { readonly into: string; readonly at: string; readonly moved?: ReadonlyArray<JsonObject> }
    }
  | { readonly type: `${N}.unmerged`; readonly data: { readonly restored_id: string; readonly changed: JsonObject; readonly at: string } }
  | { readonly type: `${N}.merge_undone`; readonly data: { readonly into: string; readonly at: string } }

/** A command of a record's life: its verb first in its type (`CreateCompany`, `Purge`, `Erase`, `Unlink`). */
export interface LifeCommand {
  readonly type: string
  readonly id: string
  readonly at: string
  readonly fields?: JsonObject
  /** The erased contact an `Unlink` command takes out of the record's contact_ids. */
  readonly contactId?: string
  /** The records an `Absorb` takes fields from (record/merge.ts). */
  readonly mergedIds?: ReadonlyArray<string>
  /** The survivor a `MergeInto` or an `Unmerge` names. */
  readonly into?: string
  /** Of an `Absorb`: per changed field, the record its value came from, and the survivor's values before. */
  readonly from?: { readonly [field: string]: string }
  readonly before?: JsonObject
  /** Of a `MergeInto`: the links the merge moved from the record. */
  readonly moved?: ReadonlyArray<MovedLinks>
  /** Of an `Unmerge`: the merged record brought back. */
  readonly restoredId?: string
}

/** The last millisecond of the 30-day window still restores; the purge takes only what is past it. */
export const recoverable = (deletedAt: string, at: string): boolean => Date.parse(at) - Date.parse(deletedAt) <= RECOVERY_WINDOW_MILLIS

/** Keeps `created_at, updated_at` last, after custom keys added later, as on creation. */
const withTimestamps = (data: JsonObject, changed: JsonObject, updatedAt: string): JsonObject => {
  const { created_at, updated_at: _, ...rest } = data
  return { ...rest, ...changed, created_at: created_at ?? null, updated_at: updatedAt }
}

/**
 * The life of record type `name` (`plural` for messages). Its events are typed as the record's own
 * event union `E`, which must be exactly RecordEvent<name> (the folders' Schemas are).
 */
export const recordLifecycle = <N extends string, E extends RecordEvent<N>>(name: N, plural: string) => {
  type Decision = Result.Result<ReadonlyArray<E>, DomainError>
  const event = (suffix: string, data: Record<string, Json>) => ({ type: `${name}.${suffix}`, data }) as unknown as E
  /** Not found; a record merged into another says which (the API sends the request there). */
  const notFound = (id: string, state?: RecordState): Decision =>
    Result.fail(
      new NotFound({
        resource: name,
        id,
        ...(state?.status === "deleted" && state.mergedInto !== undefined ? { mergedInto: state.mergedInto } : {})
      })
    )
  const isType = (e: E, suffix: string) => e.type === `${name}.${suffix}`

  const life = {
    notFound,
    /** The engine makes the id of a create: finding it taken is a replay or a bug, not a client's mistake. */
    create: (state: RecordState, id: string, fields: JsonObject, at: string): Decision =>
      state.status === "absent"
        ? Result.succeed([event("created", { id, fields, at })])
        : Result.fail(new Conflict({ message: `${name} ${id} already exists`, details: [{ path: "id", message: "already exists", id }] })),
    /** The fields a patch changes, as its event; a patch that changes nothing records nothing. */
    changes: (fields: JsonObject, patch: JsonObject, at: string): ReadonlyArray<E> => {
      const changed = changedFields(fields, patch)
      return Object.keys(changed).length === 0 ? [] : [event("updated", { changed, at })]
    },
    /** A patch of a live record, nothing more to check. */
    update: (state: RecordState, id: string, patch: JsonObject, at: string): Decision => {
      if (state.status !== "live") return notFound(id, state)
      const changed = changedFields(state.fields, patch)
      return Result.succeed(Object.keys(changed).length === 0 ? [] : [event("updated", { changed, at })])
    },
    /**
     * A command with nothing to check beyond the life, by the verb its type starts with
     * (`CreateCompany`, `Delete`): create and update take its `fields`.
     */
    decide: (state: RecordState, command: LifeCommand): Decision => {
      const { at, id, type } = command
      const fields = command.fields ?? {}
      if (type.startsWith("Create")) return life.create(state, id, fields, at)
      if (type.startsWith("Update")) return life.update(state, id, fields, at)
      if (type.startsWith("Delete")) return life.remove(state, id, at)
      if (type.startsWith("Restore")) return life.restore(state, id, at, fields)
      if (type.startsWith("Erase")) return life.erase(state, id, at)
      if (type.startsWith("Unlink")) return life.unlinkContact(state, id, command.contactId ?? "", at)
      if (type === "Absorb") return life.absorb(state, command, fields)
      if (type === "MergeInto") return life.mergeInto(state, id, command.into ?? "", command.moved ?? [], at)
      if (type === "Unmerge") return life.unmerge(state, command, fields)
      if (type === "Relink") return life.relink(state, id, fields, at)
      return life.purge(state, id, at)
    },
    /**
     * A record type's decisions with checks of its own: `create` of a record that does not exist yet
     * (a replayed create is a conflict whatever it names), `update` of a live one (any other is not
     * found); the life decides the rest, delete, restore and purge.
     */
    decideWith:
      <C extends LifeCommand>(own: {
        readonly create: (command: Extract<C, { readonly type: `Create${string}` }>, state: RecordState) => Decision
        readonly update: (command: Extract<C, { readonly type: `Update${string}` }>, state: LiveRecord) => Decision
      }) =>
      (command: C, state: RecordState): Decision =>
        command.type.startsWith("Create") && state.status === "absent"
          ? own.create(command as Extract<C, { readonly type: `Create${string}` }>, state)
          : command.type.startsWith("Update") && state.status === "live"
            ? own.update(command as Extract<C, { readonly type: `Update${string}` }>, state)
            : life.decide(state, command),
    remove: (state: RecordState, id: string, at: string): Decision =>
      state.status === "live" ? Result.succeed([event("deleted", { at })]) : notFound(id, state),
    /**
     * A merged record comes back by an unmerge only, never by a restore. `relink`: links to records
     * merged while it was in the trash, pointed at their survivors as it comes back (an update).
     */
    restore: (state: RecordState, id: string, at: string, relink: JsonObject = {}): Decision =>
      state.status === "deleted" && state.mergedInto === undefined && recoverable(state.deletedAt, at)
        ? Result.succeed([event("restored", { at }), ...life.changes(state.fields, relink, at)])
        : notFound(id, state),
    /** The survivor of a merge takes the fields the merge decided (record/merge.ts), even none. */
    absorb: (state: RecordState, command: LifeCommand, fields: JsonObject): Decision =>
      state.status === "live"
        ? Result.succeed([
            event("merged", {
              merged_ids: [...(command.mergedIds ?? [])],
              changed: changedFields(state.fields, fields),
              at: command.at,
              from: command.from ?? {},
              before: command.before ?? {}
            })
          ])
        : notFound(command.id, state),
    mergeInto: (state: RecordState, id: string, into: string, moved: ReadonlyArray<MovedLinks>, at: string): Decision =>
      state.status === "live" ? Result.succeed([event("merged_into", { into, at, moved: moved as unknown as Json })]) : notFound(id, state),
    /**
     * An unmerge within the window: the merged record (`restoredId` is its id) comes back as it was,
     * if it was merged into `into`; the survivor gives back `fields`.
     */
    unmerge: (state: RecordState, command: LifeCommand, fields: JsonObject): Decision => {
      const { at, id } = command
      const restoredId = command.restoredId ?? ""
      if (id !== restoredId)
        return state.status === "live"
          ? Result.succeed([event("unmerged", { restored_id: restoredId, changed: changedFields(state.fields, fields), at })])
          : notFound(id, state)
      return state.status === "deleted" && state.mergedInto === command.into && recoverable(state.deletedAt, at)
        ? Result.succeed([event("merge_undone", { into: command.into ?? "", at })])
        : Result.fail(new NotFound({ resource: name, id }))
    },
    /** Links re-pointed to a merge's survivor, as an update; a record in the trash keeps its links. */
    relink: (state: RecordState, id: string, fields: JsonObject, at: string): Decision =>
      state.status === "live"
        ? Result.succeed(life.changes(state.fields, fields, at))
        : state.status === "deleted"
          ? Result.succeed([])
          : notFound(id),
    /**
     * The purge of a record in the trash past the window; `now`: of a live or trashed record at once
     * (an activity about an erased person alone, purged with them: activity/decider.ts).
     */
    purge: (state: RecordState, id: string, at: string, now = false): Decision => {
      if (state.status === "absent" || state.status === "purged") return notFound(id)
      return now || (state.status === "deleted" && !recoverable(state.deletedAt, at))
        ? Result.succeed([event("purged", { at })])
        : Result.fail(
            new Conflict({
              message: `${name} ${id} is still recoverable`,
              details: [{ path: "", message: `only ${plural} deleted more than 30 days ago can be purged`, id }]
            })
          )
    },
    /**
     * A person's erasure (API.md, "Privacy"): the purge now, of a live record or one in the trash,
     * with its own tombstone; an erased or purged record is not found.
     */
    erase: (state: RecordState, id: string, at: string): Decision =>
      state.status === "live" || state.status === "deleted" ? Result.succeed([event("erased", { at })]) : notFound(id),
    /**
     * The record's link to an erased contact taken away, live or in the trash (a link outlives the
     * soft delete, record/links.ts); nothing when it names no such contact.
     */
    unlinkContact: (state: RecordState, id: string, contactId: string, at: string): Decision => {
      if (state.status !== "live" && state.status !== "deleted") return notFound(id)
      return Result.succeed(
        contactIdsOf(state.fields).includes(contactId) ? [event("contact_unlinked", { contact_id: contactId, at })] : []
      )
    },
    evolve: (state: RecordState, e: E): RecordState => {
      const data = e.data as Record<string, Json>
      if (isType(e, "created")) return { status: "live", fields: data["fields"] as JsonObject }
      if (isType(e, "updated") || isType(e, "merged"))
        return state.status === "live" ? { status: "live", fields: { ...state.fields, ...(data["changed"] as JsonObject) } } : state
      if (isType(e, "unmerged"))
        return state.status === "live" ? { status: "live", fields: { ...state.fields, ...(data["changed"] as JsonObject) } } : state
      if (isType(e, "merge_undone")) return state.status === "deleted" ? { status: "live", fields: state.fields } : state
      if (isType(e, "merged_into"))
        return state.status === "live"
          ? { status: "deleted", fields: state.fields, deletedAt: data["at"] as string, mergedInto: data["into"] as string }
          : state
      if (isType(e, "deleted"))
        return state.status === "live" ? { status: "deleted", fields: state.fields, deletedAt: data["at"] as string } : state
      if (isType(e, "restored")) return state.status === "deleted" ? { status: "live", fields: state.fields } : state
      if (isType(e, "contact_unlinked")) {
        return state.status === "live" || state.status === "deleted"
          ? { ...state, fields: withoutContact(state.fields, data["contact_id"] as string) }
          : state
      }
      // Purged or erased: nothing of the record is left.
      return { status: "purged" }
    },
    /**
     * The document as stored: `id`, the fields, `created_at, updated_at`. Delete and restore only
     * move `deletedAt` and leave `data` alone, so a restored record is the document it was.
     */
    project: (doc: Projected | null, e: E): Projected | null => {
      const data = e.data as Record<string, Json>
      if (isType(e, "created")) {
        const at = data["at"] as string
        return { data: { id: data["id"]!, ...(data["fields"] as JsonObject), created_at: at, updated_at: at }, deletedAt: null }
      }
      if (doc === null) return null
      if (isType(e, "updated") || isType(e, "merged"))
        return { ...doc, data: withTimestamps(doc.data, data["changed"] as JsonObject, data["at"] as string) }
      if (isType(e, "unmerged")) return { ...doc, data: withTimestamps(doc.data, data["changed"] as JsonObject, data["at"] as string) }
      if (isType(e, "merge_undone")) {
        // Back exactly as it was when merged.
        const { merged_into: _, ...kept } = doc.data
        return { data: kept, deletedAt: null }
      }
      // The record as it was, in the trash, naming the survivor (trash, redirects): updated_at stays.
      if (isType(e, "merged_into")) return { data: { ...doc.data, merged_into: data["into"]! }, deletedAt: data["at"] as string }
      if (isType(e, "deleted")) return { ...doc, deletedAt: data["at"] as string }
      if (isType(e, "restored")) return { ...doc, deletedAt: null }
      // Not an edit of the record's own fields: updated_at stays as it was.
      if (isType(e, "contact_unlinked")) return { ...doc, data: withoutContact(doc.data, data["contact_id"] as string) }
      return null
    }
  }
  return life
}
