/**
 * The record types a workspace keeps (its CRM records, as against its settings and the engine's own
 * bookkeeping), in the API's order. A record type's name is, unchanged, its document collection, the
 * prefix of its event types (`contact.created`), its member in a webhook payload's `data`, the
 * object its custom fields are defined on and its `type` in the trash; each of those lists is
 * derived from this one. A new record type is one entry here (with its facts below) and its folder.
 */
export const recordTypes = ["contact", "deal", "company", "activity"] as const

export type RecordType = (typeof recordTypes)[number]

/** The events of every record type's life that webhooks are told of, in the API's order. */
export const lifeEvents = ["created", "updated", "deleted", "restored"] as const

/**
 * What a record type announces besides its life's events: its own webhook event types' suffixes
 * (`deal.stage_changed`), listed after its `updated`. Every record type has the soft-delete life
 * (record/lifecycle.ts), so every one is in the trash.
 */
export const recordTypeFacts = {
  contact: { ownEvents: [] },
  deal: { ownEvents: ["stage_changed"] },
  company: { ownEvents: [] },
  activity: { ownEvents: [] }
} as const satisfies { readonly [T in RecordType]: { readonly ownEvents: ReadonlyArray<string> } }

/**
 * The tombstones of a person's erasure (API.md, "Privacy: export and erasure"): a contact erased
 * at once, whatever the trash window, leaves `contact.erased` (data `{id}`), which webhooks may
 * subscribe to and the feed hands out. Listed after every record type's other events, where the
 * API added them.
 */
export const erasedEventTypes = ["contact.erased"] as const

export type ErasedEventType = (typeof erasedEventTypes)[number]

/**
 * A merge and its undoing (API.md, "Merge and duplicates"; record/merge.ts), announced on the
 * survivor: listed after the erasure's tombstones, where the API added them.
 */
export const mergeEventTypes = ["contact.merged", "contact.unmerged", "company.merged", "company.unmerged"] as const

export type MergeEventType = (typeof mergeEventTypes)[number]

/** A record type's webhook event types: its life's and its own (and a contact's erasure). */
export type RecordEventType<T extends RecordType = RecordType> = T extends RecordType
  ?
      | `${T}.${(typeof lifeEvents)[number] | (typeof recordTypeFacts)[T]["ownEvents"][number]}`
      | Extract<ErasedEventType | MergeEventType, `${T}.${string}`>
  : never

/**
 * Every record type's webhook event types, in the API's order: per record type created, updated,
 * its own, deleted, restored; then the erasure's tombstones, then the merges'.
 */
export const recordEventTypes: ReadonlyArray<RecordEventType> = [
  ...recordTypes.flatMap((type) => {
    const [created, updated, deleted, restored] = lifeEvents
    const own: ReadonlyArray<string> = recordTypeFacts[type].ownEvents
    return [created, updated, ...own, deleted, restored].map((event) => `${type}.${event}` as RecordEventType)
  }),
  ...erasedEventTypes,
  ...mergeEventTypes
]

export const isRecordType = (u: unknown): u is RecordType => typeof u === "string" && (recordTypes as ReadonlyArray<string>).includes(u)
