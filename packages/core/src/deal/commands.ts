import type { JsonObject } from "../json.js"
import type { Relink } from "../record/merge.js"
import type { PipelineInfo } from "../pipeline/decider.js"

/** `fields` comes from `parseDealCreate`; the engine looked up the pipeline and the contacts. */
export interface CreateDeal {
  readonly type: "CreateDeal"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
  /** null when `fields.pipeline_id` names no pipeline of the workspace. */
  readonly pipeline: PipelineInfo | null
  /** The ids of `fields.contact_ids` that name no live contact. */
  readonly unknownContactIds: ReadonlyArray<string>
  /** `fields.company_id` when it names no live company of the workspace; none when omitted. */
  readonly unknownCompanyId?: string | null
}

/** `fields` comes from `parseDealPatch`. */
export interface UpdateDeal {
  readonly type: "UpdateDeal"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
  /** Used only if the patch moves the deal. */
  readonly entryId: string
  /** The pipeline the deal ends up in: the one `fields.pipeline_id` names, else the current one. */
  readonly targetPipeline: PipelineInfo | null
  /**
   * The deal's pipeline before the patch, when the patch names another: the outcome of the stage it
   * leaves is read there (closing.ts). Left out, the target pipeline is the current one.
   */
  readonly currentPipeline?: PipelineInfo | null
  readonly unknownContactIds: ReadonlyArray<string>
  /**
   * The deal's linked contacts that are now in the trash: a patch of `contact_ids` keeps them (see
   * contactLinks.ts). None when omitted.
   */
  readonly trashedContactIds?: ReadonlyArray<string>
  readonly unknownCompanyId?: string | null
  /** The deal's company when it is now in the trash: a patch of company_id to null keeps it (see companyLink.ts). */
  readonly trashedCompanyId?: string | null
}

export interface MoveStage {
  readonly type: "MoveStage"
  readonly id: string
  readonly at: string
  readonly stageId: string
  readonly reason: string | null
  /** Why the deal is lost, when the move loses it; left out, the move's reason (closing.ts). */
  readonly lostReason?: string | null
  readonly entryId: string
  /** The deal's current pipeline. */
  readonly pipeline: PipelineInfo
}

export interface DeleteDeal {
  readonly type: "DeleteDeal"
  readonly id: string
  readonly at: string
}

export interface RestoreDeal {
  readonly type: "RestoreDeal"
  readonly id: string
  readonly at: string
  /** Links to records merged while it was in the trash, pointed at their survivors (engine/records/mergeLinks.ts). */
  readonly fields?: JsonObject
}

export interface PurgeDeal {
  readonly type: "PurgeDeal"
  readonly id: string
  readonly at: string
}

/**
 * Takes an erased contact out of the deal's contact_ids, live or in the trash (API.md, "Privacy"):
 * no stage rule or deal rule sees it, as an erasure is never refused.
 */
export interface UnlinkContact {
  readonly type: "UnlinkContact"
  readonly id: string
  readonly at: string
  readonly contactId: string
}

export type DealCommand = CreateDeal | UpdateDeal | MoveStage | DeleteDeal | RestoreDeal | PurgeDeal | UnlinkContact | Relink
