import { activityFields } from "@dealstream/core"
import { Schema } from "effect"
import { customFields } from "../documented.js"
import { answerFields, createFields, patchFields } from "../fieldSchemas.js"

const done = {
  done: Schema.optionalKey(
    Schema.Boolean.annotate({
      description: "true marks the activity done (done_at becomes the time of the write); false opens it again."
    })
  )
}

export const ActivityInput = Schema.StructWithRest(Schema.Struct({ ...createFields(activityFields), ...done }), customFields).annotate({
  identifier: "ActivityInput",
  description:
    "A new activity, linked to at least one live contact, deal or company. Custom field values (object `activity`) are top-level keys."
})

export const ActivityPatch = Schema.StructWithRest(Schema.Struct({ ...patchFields(activityFields), ...done }), customFields).annotate({
  identifier: "ActivityPatch",
  description: "Only the keys present change; null clears an optional field; `done` sets or clears done_at."
})

export const Activity = Schema.StructWithRest(Schema.Struct(answerFields(activityFields)), customFields).annotate({
  identifier: "Activity"
})
