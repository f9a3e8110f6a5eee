import { Result } from "effect"
import type { Aggregate, StreamRef } from "../aggregate.js"
import type { Projected } from "../decider.js"
import type { DomainError } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { DocumentWrite } from "../storage/documents.js"
import type { DomainEvent } from "../storage/events.js"

/** One command of a traced stream: what was decided, and the stream before and after it. */
export interface TracedCommand<C, E, S> {
  readonly command: C
  /** The refusal, or null when the command was accepted. */
  readonly error: DomainError | null
  /** The events it recorded (none when refused, or when it changed nothing). */
  readonly events: ReadonlyArray<E>
  readonly stateBefore: S
  readonly state: S
  /** The record's document before and after (null for an aggregate without one, or before creation). */
  readonly before: Projected | null
  readonly after: Projected | null
}

export interface Trace<C, E, S> {
  readonly steps: ReadonlyArray<TracedCommand<C, E, S>>
  /** Every event the stream holds at the end, in order. */
  readonly history: ReadonlyArray<E>
  readonly state: S
  readonly document: Projected | null
}

/** The stream as a command is built from it. */
export interface StreamNow<S> {
  readonly state: S
  readonly document: Projected | null
}

/**
 * Runs commands through one aggregate's stream the way the engine does, without storage: decide on
 * the current state, then evolve and project event by event. A command may be given as a function
 * of the stream as it stands, as the engine builds it (a deal is moved within the pipeline it is in
 * now).
 *
 * ```ts
 * const { steps, document } = traceCommands(contactAggregate, [create, update, remove, restore])
 * ```
 */
export const traceCommands = <C, E extends DomainEvent, S>(
  aggregate: Pick<Aggregate<C, E, S>, "decider" | "project">,
  commands: Iterable<C | ((stream: StreamNow<S>) => C)>
): Trace<C, E, S> => {
  const { decider, project } = aggregate
  let state = decider.initialState
  let document: Projected | null = null
  const history: Array<E> = []
  const steps: Array<TracedCommand<C, E, S>> = []
  for (const given of commands) {
    const command = typeof given === "function" ? (given as (stream: StreamNow<S>) => C)({ state, document }) : given
    const stateBefore = state
    const before = document
    const decided = decider.decide(command, state)
    const events = Result.isSuccess(decided) ? decided.success : []
    for (const event of events) {
      history.push(event)
      state = decider.evolve(state, event)
      document = project === null ? null : project(document, event)
    }
    steps.push({ command, error: Result.isFailure(decided) ? decided.failure : null, events, stateBefore, state, before, after: document })
  }
  return { steps, history, state, document }
}

/** A document as a stream's writes leave it, by `collection id`. */
export type DocumentsById = ReadonlyMap<string, { readonly version: number; readonly deletedAt: string | null; readonly data: JsonObject }>

const applyWrites = (
  into: Map<string, DocumentsById extends ReadonlyMap<string, infer D> ? D : never>,
  writes: ReadonlyArray<DocumentWrite>
) => {
  for (const write of writes) {
    const key = `${write.collection} ${write.id}`
    if (write._tag === "Remove") into.delete(key)
    else into.set(key, { version: write.version, deletedAt: write.deletedAt, data: write.data })
  }
}

/**
 * The documents the command path writes for a traced stream, command after command (each from the
 * record as it stood and the events the command added), as storage would hold them at the end.
 */
export const documentsAlong = <C, E extends DomainEvent, S>(
  aggregate: Pick<Aggregate<C, E, S>, "documents" | "documentsNeedHistory">,
  trace: Trace<C, E, S>,
  stream: StreamRef
): DocumentsById => {
  const documents = new Map()
  let version = 0
  for (const step of trace.steps) {
    if (step.events.length === 0) continue
    version += step.events.length
    // As the engine does: the whole stream only for the events that ask for it (a purge's).
    const all = aggregate.documentsNeedHistory?.(step.events) === true ? { all: trace.history.slice(0, version) } : {}
    applyWrites(documents, aggregate.documents(stream, { before: step.before, fresh: step.events, version, ...all }))
  }
  return documents
}

/** The documents a rebuild writes for the same stream: its whole history, projected at once. */
export const documentsRebuilt = <C, E extends DomainEvent, S>(
  aggregate: Pick<Aggregate<C, E, S>, "documents">,
  history: ReadonlyArray<E>,
  stream: StreamRef
): DocumentsById => {
  const documents = new Map()
  if (history.length > 0)
    applyWrites(documents, aggregate.documents(stream, { before: null, fresh: history, version: history.length, all: history }))
  return documents
}
