import { activityFields } from "@dealstream/core"
import { Schema } from "effect"
import { optionalList, withCustomFields } from "../documented.js"
import { answerFields, createFields, patchFields } from "../fieldSchemas.js"

const done = {
  done: Schema.optionalKey(
    Schema.Boolean.annotate({
      description: "true marks the activity done (done_at becomes the time of the write); false opens it again."
    })
  )
}

export const ActivityInput = withCustomFields(
  { ...createFields(activityFields.standard), ...done },
  {
    identifier: "ActivityInput",
    description:
      "A new activity, linked to at least one live contact, deal or company. Custom field values (object `activity`) are top-level keys."
  }
)

export const ActivityPatch = withCustomFields(
  { ...patchFields(activityFields.standard), ...done },
  {
    identifier: "ActivityPatch",
    description: "Only the keys present change; null clears an optional field; `done` sets or clears done_at."
  }
)

export const Activity = withCustomFields(answerFields(activityFields.standard), { identifier: "Activity" })

/**
 * `activities`, which expand=activities adds to a contact, a deal or a company (core's
 * engine/views/activityViews.ts); `item` is Activity, or AnyRecord in a company's answer.
 */
export const expandedActivities = <S extends Schema.Top>(item: S) =>
  optionalList(item, "With expand=activities: its live activities, newest first, at most 100.")
