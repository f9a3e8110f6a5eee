import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/** `fields` holds every standard field but `id`, and the custom keys given on creation. */
export const CompanyCreated = DomainEvent("company.created", { id: Schema.String, fields: Schema.JsonObject, at: Schema.String })
export type CompanyCreated = typeof CompanyCreated.Type

/** Only the fields whose value actually changed. */
export const CompanyUpdated = DomainEvent("company.updated", { changed: Schema.JsonObject, at: Schema.String })
export type CompanyUpdated = typeof CompanyUpdated.Type

export const CompanyDeleted = DomainEvent("company.deleted", { at: Schema.String })
export type CompanyDeleted = typeof CompanyDeleted.Type

export const CompanyRestored = DomainEvent("company.restored", { at: Schema.String })
export type CompanyRestored = typeof CompanyRestored.Type

/** The tombstone left once the recovery window is over; the company's data leave the log. */
export const CompanyPurged = DomainEvent("company.purged", { at: Schema.String })
export type CompanyPurged = typeof CompanyPurged.Type

export const CompanyEvent = Schema.Union([CompanyCreated, CompanyUpdated, CompanyDeleted, CompanyRestored, CompanyPurged])
export type CompanyEvent = typeof CompanyEvent.Type
