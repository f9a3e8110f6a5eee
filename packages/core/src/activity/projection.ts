import type { Projected } from "../decider.js"
import { activityLife } from "./decider.js"
import type { ActivityEvent } from "./events.js"

/**
 * The activity document as stored: its links as written, those to records now in the trash
 * included (views leave them out).
 */
export const projectActivity = (doc: Projected | null, event: ActivityEvent): Projected | null => activityLife.project(doc, event)
