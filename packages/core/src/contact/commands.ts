import type { JsonObject } from "../json.js"

/** `fields` comes from `parseContactCreate`. */
export interface CreateContact {
  readonly type: "CreateContact"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
}

/** `fields` comes from `parseContactPatch`. */
export interface UpdateContact {
  readonly type: "UpdateContact"
  readonly id: string
  readonly at: string
  readonly fields: JsonObject
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
}

export interface PurgeContact {
  readonly type: "PurgeContact"
  readonly id: string
  readonly at: string
}

export type ContactCommand = CreateContact | UpdateContact | DeleteContact | RestoreContact | PurgeContact
