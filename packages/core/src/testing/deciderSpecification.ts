import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError } from "../errors.js"

/**
 * Given-when-then for deciders, with no test framework inside: a mismatch throws an Error carrying
 * `actual` and `expected`, which vitest (and chai-style runners) render as a diff.
 *
 *   const given = DeciderSpecification.for(dealDecider)
 *   given([created]).when(move).then([stageChanged])
 *   given([]).when(move).thenFails("NotFound")
 *
 * The history is folded with the decider's `evolve` from its `initialState`, then the command is
 * decided on that state; nothing is stored and no Effect runs.
 */
export interface DeciderSpecification<Command, Event> {
  (history: ReadonlyArray<Event>): {
    readonly when: (command: Command) => Outcome<Event>
  }
}

export interface Outcome<Event> {
  /** The command is accepted and records exactly these events. */
  readonly then: (expected: ReadonlyArray<Event>) => void
  /** The command is accepted and records nothing (an idempotent no-op). */
  readonly thenNothingHappens: () => void
  /** The command is refused with this error tag; `check` may look closer at the error. */
  readonly thenFails: <Tag extends DomainError["_tag"]>(
    tag: Tag,
    check?: (error: Extract<DomainError, { _tag: Tag }>) => void
  ) => void
}

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const sameData = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameData(x, b[i]))
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => b.has(x))
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameData(a[k], b[k]))
  }
  return false
}

const mismatch = (message: string, actual: unknown, expected: unknown): Error =>
  Object.assign(new Error(message), { actual, expected, showDiff: true })

const describe = (result: Result.Result<ReadonlyArray<unknown>, DomainError>): unknown =>
  Result.match(result, {
    onFailure: (error) => ({ failed: error._tag, message: error.message }),
    onSuccess: (events) => events
  })

const forDecider = <Command, Event, State>(
  decider: Decider<Command, Event, State>
): DeciderSpecification<Command, Event> =>
(history) => ({
  when: (command) => {
    const result = decider.decide(command, history.reduce(decider.evolve, decider.initialState))
    const then = (expected: ReadonlyArray<Event>): void => {
      if (Result.isFailure(result) || !sameData(result.success, expected)) {
        throw mismatch("the decider did not record the expected events", describe(result), expected)
      }
    }
    return {
      then,
      thenNothingHappens: () => then([]),
      thenFails: (tag, check) => {
        if (Result.isSuccess(result) || result.failure._tag !== tag) {
          throw mismatch(`the decider did not fail with ${tag}`, describe(result), { failed: tag })
        }
        check?.(result.failure as Extract<DomainError, { _tag: typeof tag }>)
      }
    }
  }
})

/**
 * Specifications of a decider, as Emmett writes them: `DeciderSpecification.for(decider)` gives
 * `given(events).when(command)`, which `then(events)`, `thenNothingHappens()` or
 * `thenFails(tag, check?)` asserts. Exported from `@dealstream/core/testing` for embedders' own
 * deciders; every aggregate's `decider.unit.spec.ts` is written with it.
 *
 * ```ts
 * import { DeciderSpecification } from "@dealstream/core/testing"
 *
 * const given = DeciderSpecification.for(contactDecider)
 * given([]).when(create).then([created])
 * given([created, deleted]).when(update).thenFails("NotFound")
 * ```
 */
export const DeciderSpecification = { for: forDecider }
