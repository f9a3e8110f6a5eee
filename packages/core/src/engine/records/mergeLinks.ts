import { Effect } from "effect"
import type { StorageUnavailable } from "../../errors.js"
import type { JsonObject } from "../../json.js"
import { type LinkField, linkedIds, relinked } from "../../record/merge.js"
import type { Collection } from "../../storage/documents.js"
import type { EngineDeps } from "../base/deps.js"
import type { RequestContext } from "../contract/Engine.js"

/** The record types that merge, and those whose fields name them. */
export type Merging = "contact" | "company"
export type Linking = "contact" | "deal" | "activity"

/**
 * Per record type that merges, the fields of each record type that name its records: what a merge
 * re-points to the survivor (mergeables.ts), and what a restore from the trash re-points to the
 * survivors of records merged meanwhile (survivorsPatch). A contact's companies are a union
 * (record/merge.ts); a company's contacts and deals are derived from theirs, so they move.
 */
export const mergeLinks: { readonly [M in Merging]: Partial<Readonly<Record<Linking, ReadonlyArray<LinkField>>>> } = {
  contact: {
    deal: [{ name: "contact_ids", type: "id_array" }],
    activity: [{ name: "contact_ids", type: "id_array" }]
  },
  company: {
    contact: [
      { name: "company_ids", type: "id_array" },
      { name: "company_id", type: "id" }
    ],
    deal: [{ name: "company_id", type: "id" }],
    activity: [{ name: "company_ids", type: "id_array" }]
  }
}

/** Merges of merges are followed this far: a survivor merged in turn hands on to its own. */
const MAX_HOPS = 10

/**
 * The patch that points a record's links at the survivors of the merged records it names: for a
 * record coming back from the trash, which a merge made while it was there did not re-point (a
 * merge moves the links of live records). Empty when it names none.
 */
export const survivorsPatch = (
  deps: EngineDeps,
  ctx: RequestContext,
  collection: Collection,
  data: JsonObject
): Effect.Effect<JsonObject, StorageUnavailable> =>
  Effect.gen(function* () {
    let fields = data
    let patch: JsonObject = {}
    for (const target of ["contact", "company"] as const) {
      const links = mergeLinks[target][collection as Linking]
      if (links === undefined) continue
      const named = linkedIds(fields, links)
      // Each merged id's survivor, followed through later merges to the record that took them all.
      const survivors = new Map<string, string>()
      let asked = named
      for (let hop = 0; hop < MAX_HOPS && asked.length > 0; hop++) {
        const docs = yield* deps.storage.getDocuments(target, ctx.workspaceId, asked)
        const next: Array<string> = []
        for (const doc of docs) {
          const into = doc.deletedAt === null ? undefined : doc.data["merged_into"]
          if (typeof into !== "string") continue
          for (const [from, to] of survivors) if (to === doc.id) survivors.set(from, into)
          if (!survivors.has(doc.id)) survivors.set(doc.id, into)
          next.push(into)
        }
        asked = next
      }
      const byInto = new Map<string, Set<string>>()
      for (const [from, into] of survivors) byInto.set(into, (byInto.get(into) ?? new Set()).add(from))
      for (const [into, from] of byInto) {
        const moved = relinked(fields, links, from, into)
        fields = { ...fields, ...moved }
        patch = { ...patch, ...moved }
      }
    }
    return patch
  })
