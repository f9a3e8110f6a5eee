import type { JsonObject } from "../json.js"
import type { MergeCommand } from "../record/merge.js"

/** `fields` comes from `parseCompanyCreate`. */
export interface CreateCompany {
  readonly type: "CreateCompany"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
}

/** `fields` comes from `parseCompanyPatch`. */
export interface UpdateCompany {
  readonly type: "UpdateCompany"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
}

export interface DeleteCompany {
  readonly type: "DeleteCompany"
  readonly id: string
  readonly at: string
}

export interface RestoreCompany {
  readonly type: "RestoreCompany"
  readonly id: string
  readonly at: string
}

export interface PurgeCompany {
  readonly type: "PurgeCompany"
  readonly id: string
  readonly at: string
}

export type CompanyCommand = CreateCompany | UpdateCompany | DeleteCompany | RestoreCompany | PurgeCompany | MergeCommand
