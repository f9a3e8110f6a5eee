import { type Aggregate, recordDocument, type StreamChange, type StreamRef } from "../aggregate.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { DealCommand } from "./commands.js"
import { dealDecider } from "./decider.js"
import { DealEvent } from "./events.js"
import { DEAL_STANDING, dealFigureDocuments, dealFiguresNeedHistory, STAGE_CHANGE } from "./figureDocuments.js"
import { projectDeal, timelineEntryOf } from "./projection.js"
import type { DealState } from "./state.js"

const dealDocument = recordDocument("deal", projectDeal, { searched: "deal" })

/** A timeline entry per stage change, written once; a purge removes them with the deal. */
const isPurge = (events: ReadonlyArray<DealEvent>) => events.some((event) => event.type === "deal.purged")

const timelineEntries = ({ id, workspaceId }: StreamRef, { all, fresh }: StreamChange<DealEvent>) => {
  const writes: Array<DocumentWrite> = []
  // A purge removes the entries of every earlier move, so it is given the whole stream.
  const purged = isPurge(fresh) || (all !== undefined && isPurge(all))
  for (const event of purged ? (all ?? fresh) : fresh) {
    const entry = timelineEntryOf(id, event)
    if (entry === null) continue
    writes.push(
      purged
        ? { _tag: "Remove", collection: "timeline_entry", workspaceId, id: entry.id }
        : {
            _tag: "Upsert",
            collection: "timeline_entry",
            workspaceId,
            id: entry.id,
            version: 1,
            deletedAt: null,
            uniqueKey: null,
            searchWords: [],
            data: entry
          }
    )
  }
  return writes
}

export const dealAggregate: Aggregate<DealCommand, DealEvent, DealState> = {
  name: "deal",
  prefix: "deal",
  decider: dealDecider,
  events: DealEvent,
  project: projectDeal,
  documents: (stream, change) => [
    ...dealDocument(stream, change),
    ...timelineEntries(stream, change),
    ...dealFigureDocuments(stream, change)
  ],
  documentsNeedHistory: (fresh) => isPurge(fresh) || dealFiguresNeedHistory(fresh),
  searched: true,
  collections: ["deal", "timeline_entry", DEAL_STANDING, STAGE_CHANGE],
  rebuilt: true,
  purge: (id, at) => ({ type: "PurgeDeal", id, at })
}
