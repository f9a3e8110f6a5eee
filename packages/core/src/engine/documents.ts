import { type ContactEvent, contactUniqueKey, projectContact } from "../contact/index.js"
import { type DealEvent, projectDeal, timelineEntryOf } from "../deal/index.js"
import { type PipelineEvent, projectPipeline } from "../pipeline/index.js"
import type { SearchFields } from "../query/documentSearchWords.js"
import type { DocumentWrite } from "../storage/documents.js"
import { documentWrite, foldProjection } from "./execute.js"

/**
 * The documents a stream's events project to. The command path calls these with the events a
 * command added as `fresh`; rebuild calls them with the whole stream as `fresh`, so both write exactly
 * the same documents.
 */
export type StreamDocuments<E> = (
  all: ReadonlyArray<E>,
  fresh: ReadonlyArray<E>,
  version: number
) => ReadonlyArray<DocumentWrite>

export const contactDocuments = (workspaceId: string, id: string, search: SearchFields): StreamDocuments<ContactEvent> =>
(all, _fresh, version) => {
  const projected = foldProjection(projectContact, all)
  const uniqueKey = projected === null ? null : contactUniqueKey(projected)
  return [documentWrite("contact", workspaceId, id, version, projected, { uniqueKey, search })]
}

export const dealDocuments = (workspaceId: string, id: string, search: SearchFields): StreamDocuments<DealEvent> =>
(all, fresh, version) => {
  const projected = foldProjection(projectDeal, all)
  const writes: Array<DocumentWrite> = [documentWrite("deal", workspaceId, id, version, projected, { search })]
  if (projected === null) {
    // Purged: the timeline entries go with the deal.
    for (const event of all) {
      const entry = timelineEntryOf(id, event)
      if (entry !== null) writes.push({ _tag: "Remove", collection: "timeline_entry", workspaceId, id: String(entry["id"]) })
    }
    return writes
  }
  for (const event of fresh) {
    const entry = timelineEntryOf(id, event)
    if (entry === null) continue
    writes.push({
      _tag: "Upsert",
      collection: "timeline_entry",
      workspaceId,
      id: String(entry["id"]),
      version: 1,
      deletedAt: null,
      uniqueKey: null,
      searchWords: [],
      data: entry
    })
  }
  return writes
}

export const pipelineDocuments = (workspaceId: string, id: string): StreamDocuments<PipelineEvent> =>
(all, _fresh, version) => [documentWrite("pipeline", workspaceId, id, version, foldProjection(projectPipeline, all))]

/** The collections projections write; rebuild replaces exactly these. */
export const projectedCollections = ["contact", "deal", "timeline_entry", "pipeline"] as const
