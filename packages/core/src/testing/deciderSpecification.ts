import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError } from "../errors.js"
import { sameData } from "./sameData.js"

/** What a command is expected to do: record these events, or be refused with this error. */
export type Expected<Event> = ReadonlyArray<Event> | DomainError

export interface Outcome<Event> {
  /**
   * The command is accepted and records exactly these events, or, given a domain error, is refused
   * with an error of its tag and message (and details, when the expected error has any).
   */
  readonly then: (expected: Expected<Event>) => void
  /** The command is accepted and records nothing (an idempotent no-op). */
  readonly thenNothingHappens: () => void
  /** The command is refused with this error tag; `check` may look closer at the error. */
  readonly thenFails: <Tag extends DomainError["_tag"]>(tag: Tag, check?: (error: Extract<DomainError, { _tag: Tag }>) => void) => void
}

/**
 * Given-when-then for one decider, with no test framework inside: a mismatch throws an Error
 * carrying `actual` and `expected`, which vitest (and chai-style runners) render as a diff.
 * `spec.given(events)` and `spec(events)` are the same.
 */
export interface DeciderSpecification<Command, Event> {
  (history: ReadonlyArray<Event>): { readonly when: (command: Command) => Outcome<Event> }
  readonly given: (history: ReadonlyArray<Event>) => { readonly when: (command: Command) => Outcome<Event> }
}

const mismatch = (message: string, actual: unknown, expected: unknown): Error =>
  Object.assign(new Error(message), { actual, expected, showDiff: true })

/**
 * An error as compared and shown: its tag, message and details. Effect's tagged errors keep
 * `message` off their own keys, so comparing the objects themselves would call any two equal.
 */
const errorShape = (error: DomainError): Record<string, unknown> => ({
  failed: error._tag,
  message: error.message,
  ...("details" in error && error.details.length > 0 ? { details: error.details } : {})
})

const describe = (result: Result.Result<ReadonlyArray<unknown>, DomainError>): unknown =>
  Result.match(result, { onFailure: errorShape, onSuccess: (events) => events })

const isDomainError = (u: unknown): u is DomainError => !Array.isArray(u) && typeof (u as { _tag?: unknown })._tag === "string"

const forDecider = <Command, Event, State>(decider: Decider<Command, Event, State>): DeciderSpecification<Command, Event> => {
  const given = (history: ReadonlyArray<Event>) => ({
    when: (command: Command): Outcome<Event> => {
      const result = decider.decide(command, history.reduce(decider.evolve, decider.initialState))
      const thenEvents = (expected: ReadonlyArray<Event>): void => {
        if (Result.isFailure(result) || !sameData(result.success, expected)) {
          throw mismatch("the decider did not record the expected events", describe(result), expected)
        }
      }
      const thenError = (expected: DomainError): void => {
        const wanted = errorShape(expected)
        const refused = Result.isFailure(result) ? errorShape(result.failure) : null
        // Details are compared only when the expected error names some.
        const actual = refused === null || "details" in wanted ? refused : { failed: refused["failed"], message: refused["message"] }
        if (actual === null || !sameData(actual, wanted)) {
          throw mismatch(`the decider did not fail with ${expected._tag}: ${expected.message}`, describe(result), wanted)
        }
      }
      return {
        // biome-ignore lint/suspicious/noThenProperty: given/when/then is the specification's language; the object is never awaited.
        then: (expected) => (isDomainError(expected) ? thenError(expected) : thenEvents(expected)),
        thenNothingHappens: () => thenEvents([]),
        thenFails: (tag, check) => {
          if (Result.isSuccess(result) || result.failure._tag !== tag) {
            throw mismatch(`the decider did not fail with ${tag}`, describe(result), { failed: tag })
          }
          check?.(result.failure as Extract<DomainError, { _tag: typeof tag }>)
        }
      }
    }
  })
  return Object.assign((history: ReadonlyArray<Event>) => given(history), { given })
}

/**
 * Specifications of a decider, as Emmett writes them:
 * `DeciderSpecification.for(decider).given(events).when(command)`, then `then(events)`,
 * `then(error)`, `thenNothingHappens()` or `thenFails(tag, check?)`. The history is folded with the
 * decider's `evolve` from its `initialState`, then the command is decided on that state; nothing is
 * stored and no Effect runs. Every aggregate's `decider.unit.spec.ts` is written with it.
 *
 * ```ts
 * import { DeciderSpecification } from "@dealstream/core/testing"
 *
 * const spec = DeciderSpecification.for(dealDecider)
 * spec.given([created]).when(move).then([stageChanged])
 * spec.given([]).when(move).then(new NotFound({ resource: "deal", id: "deal_1" }))
 * spec.given([created, deleted]).when(update).thenFails("NotFound")
 * ```
 */
export const DeciderSpecification = { for: forDecider }
