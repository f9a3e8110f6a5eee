import type { JsonObject } from "../json.js"
import type { Relink } from "../record/merge.js"
import type { LinkIds } from "./links.js"

/** `fields` and `done` come from `parseActivityCreate`; the engine looked up the linked records. */
export interface CreateActivity {
  readonly type: "CreateActivity"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
  /** true: the activity is created done (done_at is `at`). */
  readonly done: boolean | null
  /** The ids of each link list that name no live record of the workspace. */
  readonly unknownIds: LinkIds
}

/** `fields` and `done` come from `parseActivityPatch`. */
export interface UpdateActivity {
  readonly type: "UpdateActivity"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
  /** true: done_at becomes `at` unless already set; false: done_at is cleared; null: untouched. */
  readonly done: boolean | null
  readonly unknownIds: LinkIds
  /** The activity's linked records now in the trash, of each list the patch gives: kept (links.ts). */
  readonly trashedIds: LinkIds
}

export interface DeleteActivity {
  readonly type: "DeleteActivity"
  readonly id: string
  readonly at: string
}

export interface RestoreActivity {
  readonly type: "RestoreActivity"
  readonly id: string
  readonly at: string
  /** Links to records merged while it was in the trash, pointed at their survivors (engine/records/mergeLinks.ts). */
  readonly fields?: JsonObject
}

export interface PurgeActivity {
  readonly type: "PurgeActivity"
  readonly id: string
  readonly at: string
}

/**
 * Takes an erased contact out of the activity's contact_ids, live or in the trash; an activity that
 * named that person alone is purged at once instead (decider.ts).
 */
export interface UnlinkActivityContact {
  readonly type: "UnlinkActivityContact"
  readonly id: string
  readonly at: string
  readonly contactId: string
}

export type ActivityCommand =
  | CreateActivity
  | UpdateActivity
  | DeleteActivity
  | RestoreActivity
  | PurgeActivity
  | UnlinkActivityContact
  | Relink
