import type { JsonObject } from "../json.js"
import type { MergeCommand, Relink } from "../record/merge.js"
import type { NamedCompany } from "./companyLinks.js"

/** `fields` comes from `parseContactCreate`; the engine looked up the companies it names. */
export interface CreateContact {
  readonly type: "CreateContact"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
  /** The companies the body named that are not live companies of the workspace. None when omitted. */
  readonly unknownCompanies?: ReadonlyArray<NamedCompany>
}

/** `fields` comes from `parseContactPatch`. */
export interface UpdateContact {
  readonly type: "UpdateContact"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
  readonly unknownCompanies?: ReadonlyArray<NamedCompany>
  /**
   * The contact's linked companies that are now in the trash: a patch of its companies keeps them
   * (see companyLinks.ts). None when omitted.
   */
  readonly trashedCompanyIds?: ReadonlyArray<string>
}

export interface DeleteContact {
  readonly type: "DeleteContact"
  readonly id: string
  readonly at: string
}

export interface RestoreContact {
  readonly type: "RestoreContact"
  readonly id: string
  readonly at: string
  /** Links to records merged while it was in the trash, pointed at their survivors (engine/records/mergeLinks.ts). */
  readonly fields?: JsonObject
}

export interface PurgeContact {
  readonly type: "PurgeContact"
  readonly id: string
  readonly at: string
}

/** A person's erasure: the purge now, of a live contact or one in the trash (`contact.erased`). */
export interface EraseContact {
  readonly type: "EraseContact"
  readonly id: string
  readonly at: string
}

export type ContactCommand =
  | CreateContact
  | UpdateContact
  | DeleteContact
  | RestoreContact
  | PurgeContact
  | EraseContact
  | MergeCommand
  | Relink
