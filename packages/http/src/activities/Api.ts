import { securedGroup } from "../documented.js"
import { activityParams } from "../parameters.js"
import { recordEndpoints } from "../recordEndpoints.js"
import { Activity, ActivityInput, ActivityPatch } from "./schemas.js"

const activities = recordEndpoints({
  name: "Activity",
  collection: "/v1/activities",
  record: Activity,
  input: ActivityInput,
  patch: ActivityPatch,
  list: { query: activityParams, description: "Sort fields: due_at, created_at, updated_at and custom fields (default created_at)." },
  get: {}
})

export class ActivitiesApi extends securedGroup(
  "activities",
  activities.list,
  activities.export,
  activities.get,
  activities.create,
  activities.update,
  activities.delete,
  activities.restore,
  activities.history
) {}
