import { type Aggregate, recordDocument } from "../aggregate.js"
import type { PipelineCommand } from "./commands.js"
import { pipelineDecider, type PipelineState } from "./decider.js"
import { PipelineEvent } from "./events.js"
import { projectPipeline } from "./projection.js"

export const pipelineAggregate: Aggregate<PipelineCommand, PipelineEvent, PipelineState> = {
  name: "pipeline",
  prefix: "pipe",
  decider: pipelineDecider,
  events: PipelineEvent,
  project: projectPipeline,
  documents: recordDocument("pipeline", projectPipeline),
  collections: ["pipeline"],
  settings: true,
  rebuilt: true
}
