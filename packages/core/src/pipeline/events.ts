import type { DomainEvent } from "../storage/events.js"

export type Stage = {
  readonly id: string
  readonly name: string
  /** The stage's index in the pipeline's list, from 0. */
  readonly position: number
}

export type PipelineCreated = DomainEvent<"pipeline.created", {
  readonly id: string
  readonly name: string
  readonly stages: ReadonlyArray<Stage>
  readonly at: string
}>

/** Carries `name` and `stages` only when they changed; `stages` is then the whole new list. */
export type PipelineUpdated = DomainEvent<"pipeline.updated", {
  readonly name?: string
  readonly stages?: ReadonlyArray<Stage>
  readonly at: string
}>

export type PipelineEvent = PipelineCreated | PipelineUpdated
