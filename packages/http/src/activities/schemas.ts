import { activityFields, type RecordFields } from "@dealstream/core"
import { Schema } from "effect"
import { customFields } from "../documented.js"
import { answerFields, createFields, patchFields } from "../fieldSchemas.js"

const done = {
  done: Schema.optionalKey(Schema.Boolean.annotate({
    description: "true marks the activity done (done_at becomes the time of the write); false opens it again."
  }))
}

export const ActivityInput = Schema.StructWithRest(Schema.Struct({ ...createFields(activityFields), ...done }), customFields).annotate({
  identifier: "ActivityInput",
  description: "A new activity, linked to at least one live contact, deal or company. Custom field values (object `activity`) are top-level keys."
})

export const ActivityPatch = Schema.StructWithRest(Schema.Struct({ ...patchFields(activityFields), ...done }), customFields).annotate({
  identifier: "ActivityPatch",
  description: "Only the keys present change; null clears an optional field; `done` sets or clears done_at."
})

/**
 * done_at is null while the activity is open. The field table leaves it not nullable (it is
 * read-only, so no body sends null); the answer's schema must still allow null.
 */
const answered: RecordFields = {
  ...activityFields,
  standard: activityFields.standard.map((field) => field.name === "done_at" ? { ...field, nullable: true } : field)
}

export const Activity = Schema.StructWithRest(Schema.Struct(answerFields(answered)), customFields)
  .annotate({ identifier: "Activity" })
