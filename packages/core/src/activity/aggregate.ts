import { type Aggregate, recordDocument } from "../aggregate.js"
import type { ActivityCommand } from "./commands.js"
import { activityDecider, type ActivityState } from "./decider.js"
import { ActivityEvent } from "./events.js"
import { projectActivity } from "./projection.js"

/** Activities are not searched (list filters find them) and hold no unique key. */
export const activityAggregate: Aggregate<ActivityCommand, ActivityEvent, ActivityState> = {
  name: "activity",
  prefix: "act",
  decider: activityDecider,
  events: ActivityEvent,
  project: projectActivity,
  documents: recordDocument("activity", projectActivity),
  collections: ["activity"],
  rebuilt: true,
  purge: (id, at) => ({ type: "PurgeActivity", id, at })
}
