/**
 * The record types a workspace keeps (its CRM records, as against its settings and the engine's own
 * bookkeeping), in the API's order. A record type's name is, unchanged, its document collection, the
 * prefix of its event types (`contact.created`), its member in a webhook payload's `data`, the
 * object its custom fields are defined on and its `type` in the trash; each of those lists is
 * derived from this one. A new record type is one entry here (with its facts below) and its folder.
 */
export const recordTypes = ["contact", "deal", "company", "activity"] as const

export type RecordType = (typeof recordTypes)[number]

/** What a record type announces besides its life's events (created, updated, deleted, restored). */
export const recordTypeFacts: {
  readonly [T in RecordType]: {
    /** Its own webhook event types' suffixes, announced after `updated` (`deal.stage_changed`). */
    readonly ownEvents: ReadonlyArray<string>
  }
} = {
  contact: { ownEvents: [] },
  deal: { ownEvents: ["stage_changed"] },
  company: { ownEvents: [] },
  activity: { ownEvents: [] }
}

export const isRecordType = (u: unknown): u is RecordType => typeof u === "string" && (recordTypes as ReadonlyArray<string>).includes(u)
