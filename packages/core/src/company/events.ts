import { Schema } from "effect"
import { recordEvents } from "../record/events.js"

/** The company's events: its life (record/events.ts), nothing of its own. On a purge the company's data leave the log. */
export const CompanyEvent = recordEvents("company", Schema.JsonObject).Event
export type CompanyEvent = typeof CompanyEvent.Type
