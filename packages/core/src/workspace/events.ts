import { Schema } from "effect"
import { DomainEvent } from "../storage/events.js"

/** The workspace got its default pipeline: written once, in the same commit as that pipeline. */
export const WorkspaceInitialized = DomainEvent("workspace.initialized", { default_pipeline_id: Schema.String, at: Schema.String })
export type WorkspaceInitialized = typeof WorkspaceInitialized.Type

export const WorkspaceEvent = Schema.Union([WorkspaceInitialized])
export type WorkspaceEvent = typeof WorkspaceEvent.Type
