import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/**
 * The events of a soft-deletable record type's life (lifecycle.ts) as the log stores them, for the
 * type whose events are named `name.…` (`contact`): `fields` is the Schema of a record's fields, all
 * of them on creation (every standard field but `id`, and the custom keys given), those whose value
 * actually changed on an update. `Event` is their union, in this order; a record type with events of
 * its own (a deal's stage move) makes its union from the parts. Stored events decode with these, so
 * their names, fields and field order are the log's format: change none of them.
 */
export const recordEvents = <const N extends string, const F extends Schema.Top>(name: N, fields: F) => {
  const Created = DomainEvent(`${name}.created`, { id: Schema.String, fields, at: Schema.String })
  const Updated = DomainEvent(`${name}.updated`, { changed: fields, at: Schema.String })
  const Deleted = DomainEvent(`${name}.deleted`, { at: Schema.String })
  const Restored = DomainEvent(`${name}.restored`, { at: Schema.String })
  /** The tombstone left once the recovery window is over: the record's data leave the log. */
  const Purged = DomainEvent(`${name}.purged`, { at: Schema.String })
  /**
   * The tombstone of a record erased at once, whatever the window (a person's erasure, API.md
   * "Privacy"): its data leave the log as a purge's do. Only a record type that adds it to its
   * union has it (contacts).
   */
  const Erased = DomainEvent(`${name}.erased`, { at: Schema.String })
  /**
   * A link to a contact taken away because that contact was erased: the record's contact_ids lose
   * it, whether the record is live or in the trash, and the event names the contact by its id
   * only. Only a record type that adds it to its union has it (deals, activities).
   */
  const ContactUnlinked = DomainEvent(`${name}.contact_unlinked`, { contact_id: Schema.String, at: Schema.String })
  /**
   * The survivor of a merge (record/merge.ts): `changed` are the fields it took from the records
   * `merged_ids`, which left for the trash in the same commit. Only a mergeable record type has it.
   */
  const Merged = DomainEvent(`${name}.merged`, {
    merged_ids: Schema.Array(Schema.String),
    changed: fields,
    at: Schema.String,
    /** Per changed field, the merged record its value came from; `before`: the survivor's values before. What an unmerge undoes. */
    from: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
    before: Schema.optionalKey(Schema.JsonObject)
  })
  /**
   * A record merged into `into`: it leaves every view for the trash, its fields as they were.
   * `moved`: the records whose links the merge re-pointed from it, their link fields before and after.
   */
  const MergedInto = DomainEvent(`${name}.merged_into`, {
    into: Schema.String,
    at: Schema.String,
    moved: Schema.optionalKey(
      Schema.Array(Schema.Struct({ type: Schema.String, id: Schema.String, before: Schema.JsonObject, after: Schema.JsonObject }))
    )
  })
  /** An unmerge on the survivor (record/merge.ts): `changed` are the values it gives back to `restored_id`. */
  const Unmerged = DomainEvent(`${name}.unmerged`, { restored_id: Schema.String, changed: fields, at: Schema.String })
  /** The same unmerge on the record merged: it is back as it was, out of the trash. Not announced (the survivor's is). */
  const MergeUndone = DomainEvent(`${name}.merge_undone`, { into: Schema.String, at: Schema.String })
  return {
    Created,
    Updated,
    Deleted,
    Restored,
    Purged,
    Erased,
    ContactUnlinked,
    Merged,
    MergedInto,
    Unmerged,
    MergeUndone,
    Event: Schema.Union([Created, Updated, Deleted, Restored, Purged])
  }
}
