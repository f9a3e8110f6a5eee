import type { Json, JsonObject } from "../json.js"

/**
 * Merging duplicates (API.md, "Merge and duplicates"), the pure part every mergeable record type
 * shares: the commands of the one commit a merge is, the survivor's fields after it, and a linking
 * record's links re-pointed to the survivor.
 */

/** The survivor takes `fields` (the values it changes) from `mergedIds`: `<type>.merged`. */
export interface AbsorbRecords {
  readonly type: "Absorb"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
  readonly mergedIds: ReadonlyArray<string>
  readonly from: { readonly [field: string]: string }
  readonly before: JsonObject
}

/** The links a merge moved from a merged record: one linking record's link fields before and after. */
export interface MovedLinks {
  /** The linking record's type (`deal`). */
  readonly type: string
  readonly id: string
  readonly before: JsonObject
  readonly after: JsonObject
}

/** A merged record leaves every view for the trash, naming the survivor: `<type>.merged_into`. */
export interface MergeInto {
  readonly type: "MergeInto"
  readonly id: string
  readonly at: string
  readonly into: string
  readonly moved: ReadonlyArray<MovedLinks>
}

/**
 * An unmerge: on the merged record `restoredId` (then `id` is it), its return as it was; on the
 * survivor `into`, the values it gives back (`fields`).
 */
export interface Unmerge {
  readonly type: "Unmerge"
  readonly id: string
  readonly at: string
  readonly into: string
  readonly restoredId: string
  readonly fields: JsonObject
}

/**
 * A record that named a merged record names the survivor: `fields` are its link fields re-pointed.
 * Recorded as the record's update, so its webhooks and the feed show the new links.
 */
export interface Relink {
  readonly type: "Relink"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
}

export type MergeCommand = AbsorbRecords | MergeInto | Unmerge

/** A list of ids a merge unions, survivor's first, and the field naming its first element (a contact's companies). */
export interface UnionLink {
  readonly array: string
  readonly primary?: string
}

/** What a record type's merge keeps apart from the fill rule: its unique field and the link lists it unions. */
export interface MergeRules {
  readonly unique: string
  readonly unions: ReadonlyArray<UnionLink>
}

/** Fields a merge never copies whatever the record type: the record's identity and times. */
export const notMerged: ReadonlySet<string> = new Set(["id", "created_at", "updated_at", "merged_into"])

const isEmpty = (value: Json | undefined): boolean =>
  value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)

const idsIn = (value: Json | undefined): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : []

const unique = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> => values.filter((v, i) => values.indexOf(v) === i)

/**
 * The survivor's fields after the merge, as a patch of the fields it changes: each field keeps the
 * survivor's value, an empty one takes the first non-empty value among `merged` in order, and a
 * field `prefer` names takes the value of the record it names (the survivor's own included). The
 * unique field is never copied; a union link is the union of all, survivor's first, its primary
 * field the union's first element.
 */
export const mergedFields = (
  survivor: { readonly id: string; readonly fields: JsonObject },
  merged: ReadonlyArray<{ readonly id: string; readonly fields: JsonObject }>,
  prefer: ReadonlyMap<string, string>,
  rules: MergeRules
): { readonly patch: JsonObject; readonly from: { readonly [field: string]: string }; readonly before: JsonObject } => {
  const all = [survivor, ...merged]
  const from: Record<string, string> = {}
  const linkFields = new Set(rules.unions.flatMap((link) => [link.array, ...(link.primary === undefined ? [] : [link.primary])]))
  const keys = unique(all.flatMap((record) => Object.keys(record.fields)))
  const patch: Record<string, Json> = {}
  for (const key of keys) {
    if (notMerged.has(key) || key === rules.unique || linkFields.has(key)) continue
    const preferred = prefer.get(key)
    const source =
      preferred !== undefined
        ? all.find((record) => record.id === preferred)
        : isEmpty(survivor.fields[key])
          ? merged.find((record) => !isEmpty(record.fields[key]))
          : undefined
    const value = source === undefined ? undefined : (source.fields[key] ?? null)
    if (source !== undefined && value !== undefined && JSON.stringify(value) !== JSON.stringify(survivor.fields[key] ?? null)) {
      patch[key] = value
      from[key] = source.id
    }
  }
  for (const link of rules.unions) {
    const union = unique(all.flatMap((record) => idsIn(record.fields[link.array])))
    if (JSON.stringify(union) !== JSON.stringify(idsIn(survivor.fields[link.array]))) patch[link.array] = [...union]
    if (link.primary !== undefined) {
      const primary = union[0] ?? null
      if (primary !== (survivor.fields[link.primary] ?? null)) patch[link.primary] = primary
    }
  }
  const before = Object.fromEntries(Object.keys(patch).map((key) => [key, survivor.fields[key] ?? null]))
  return { patch, from, before }
}

const same = (a: Json | undefined, b: Json | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

/**
 * What the survivor gives back when `restored` is unmerged: each field whose value came from it and
 * is still that value goes back to what the merge would have made without it (its own value before,
 * or the first non-empty of the records still merged, in order); a union link loses the ids only the
 * restored record brought, unless a write added them since. Fields changed since stay as they are.
 */
export const unmergedFields = (
  current: JsonObject,
  merge: { readonly changed: JsonObject; readonly from: { readonly [field: string]: string }; readonly before: JsonObject },
  restored: { readonly id: string; readonly fields: JsonObject },
  stillMerged: ReadonlyArray<{ readonly id: string; readonly fields: JsonObject }>,
  rules: MergeRules
): JsonObject => {
  const patch: Record<string, Json> = {}
  for (const [key, source] of Object.entries(merge.from)) {
    if (source !== restored.id || !same(current[key], merge.changed[key])) continue
    const own = merge.before[key] ?? null
    patch[key] = !isEmpty(own) ? own : (stillMerged.map((record) => record.fields[key]).find((value) => !isEmpty(value)) ?? own)
  }
  for (const link of rules.unions) {
    const others = new Set([
      ...idsIn(merge.before[link.array] ?? current[link.array]),
      ...stillMerged.flatMap((record) => idsIn(record.fields[link.array]))
    ])
    const brought = idsIn(restored.fields[link.array]).filter((id) => !others.has(id))
    const ids = idsIn(current[link.array])
    if (!brought.some((id) => ids.includes(id))) continue
    const kept = ids.filter((id) => !brought.includes(id))
    patch[link.array] = kept
    if (link.primary !== undefined && (current[link.primary] ?? null) !== (kept[0] ?? null)) patch[link.primary] = kept[0] ?? null
  }
  return patch
}

/** One field of another record type that names records of the merged type: an id or a list of ids. */
export interface LinkField {
  readonly name: string
  readonly type: "id" | "id_array"
}

/** The ids a linking record's link fields name, each once, in field order. */
export const linkedIds = (fields: JsonObject, links: ReadonlyArray<LinkField>): ReadonlyArray<string> =>
  unique(
    links.flatMap((link) =>
      link.type === "id" ? (typeof fields[link.name] === "string" ? [fields[link.name] as string] : []) : idsIn(fields[link.name])
    )
  )

/**
 * A linking record's link fields with every id of `from` replaced by `to`, each list naming it
 * once and keeping its order: only the fields that change.
 */
export const relinked = (fields: JsonObject, links: ReadonlyArray<LinkField>, from: ReadonlySet<string>, to: string): JsonObject => {
  const patch: Record<string, Json> = {}
  for (const link of links) {
    const value = fields[link.name]
    if (link.type === "id") {
      if (typeof value === "string" && from.has(value)) patch[link.name] = to
      continue
    }
    const ids = idsIn(value)
    if (!ids.some((id) => from.has(id))) continue
    patch[link.name] = [...unique(ids.map((id) => (from.has(id) ? to : id)))]
  }
  return patch
}

/**
 * A record's document in the trash naming the survivor it was merged into: what a NotFound for its
 * id carries, so that the API sends the request there (308). Nothing for any other record.
 */
export const mergedIntoOf = (data: JsonObject | undefined): { readonly mergedInto?: string } => {
  const into = data?.["merged_into"]
  return typeof into === "string" ? { mergedInto: into } : {}
}

/**
 * The time of each event of a merge's (or an unmerge's) one commit: the same for all, so that an
 * as-of read sees all of it or none; never before a stream's last event (a stream's history stays in order).
 */
export const oneTime = (shared: string, lastAt: string | undefined): string => (lastAt !== undefined && lastAt > shared ? lastAt : shared)
