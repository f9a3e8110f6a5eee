import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/**
 * The company's events: its life (record/events.ts), nothing of its own. On a purge the company's data leave the log.
 */
export const {
  Created: CompanyCreated,
  Updated: CompanyUpdated,
  Deleted: CompanyDeleted,
  Restored: CompanyRestored,
  Purged: CompanyPurged,
  Event: CompanyEvent
} = recordEvents("company", Schema.JsonObject)
export type CompanyCreated = typeof CompanyCreated.Type
export type CompanyUpdated = typeof CompanyUpdated.Type
export type CompanyDeleted = typeof CompanyDeleted.Type
export type CompanyRestored = typeof CompanyRestored.Type
export type CompanyPurged = typeof CompanyPurged.Type
export type CompanyEvent = typeof CompanyEvent.Type
