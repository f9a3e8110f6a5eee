import type { World } from "@dealstream/core/testing"
import { Effect } from "effect"
import { expect } from "vitest"

/**
 * The property behind "documents are pure projections of the log, so they can be rebuilt at any
 * time", run by the harness's model runner (`checkModel` from @dealstream/core/testing): random
 * commands in two workspaces through the engine on a real storage. After every command, the
 * standard invariants (what storage holds equals what the run's log projects to, timelines chain,
 * delete then restore is identity, associations hide deleted records, refusals record nothing);
 * after the last, `storedEqualsRebuild`: what `rebuildDocuments` (the code `dealstream rebuild` runs)
 * makes of the log equals what the commands stored, in the same order.
 *
 * This catches a command path that writes something its events do not say (or forgets to write
 * something they do), a storage that loses or changes a field on upsert, and a rebuild that projects
 * differently from the command path. Compared: every document's collection, workspace, id, version,
 * deletedAt and data, API keys included. Not compared: the search words and unique keys stored
 * beside them, which the Storage port does not return.
 */

/** Adds up what the runs did, to show the commands were accepted often enough to mean something. */
export const coverage = () => {
  const totals: Record<string, number> = {}
  const count = (kind: string, n: number) => {
    totals[kind] = (totals[kind] ?? 0) + n
  }
  return {
    add: (world: World<unknown>) =>
      Effect.map(world.documentsNow, (documents) => {
        for (const [kind, n] of Object.entries(world.accepted)) count(kind, n)
        count("timelineEntries", documents.filter((d) => d.collection === "timeline_entry").length)
        count("inTrash", documents.filter((d) => d.deletedAt !== null).length)
        count("revokedKeys", documents.filter((d) => d.collection === "api_key" && d.data["revoked_at"] !== null).length)
      }),
    /** Every command kind was accepted, and every outcome a rebuild must reproduce happened, in some run. */
    check: () => {
      const wanted = [
        "defineField",
        "deleteField",
        "createContact",
        "updateContact",
        "deleteContact",
        "restoreContact",
        "eraseContact",
        "createDeal",
        "updateDeal",
        "moveStage",
        "deleteDeal",
        "restoreDeal",
        "createPipeline",
        "updatePipeline",
        "createKey",
        "revokeKey",
        "purged",
        "timelineEntries",
        "inTrash",
        "revokedKeys",
        "createCompany",
        "updateCompany",
        "deleteCompany",
        "restoreCompany",
        "companyBatch",
        "createActivity",
        "updateActivity",
        "deleteActivity",
        "restoreActivity"
      ]
      expect(wanted.filter((kind) => (totals[kind] ?? 0) === 0)).toEqual([])
      return totals
    }
  }
}
