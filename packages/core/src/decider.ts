import type { Result } from "effect"
import type { DomainError } from "./errors.js"

/**
 * A pure aggregate: `decide` turns a command into events (or refuses it) given the state that
 * `evolve` folds from earlier events. Time and new ids arrive inside the command.
 */
export interface Decider<Command, Event, State> {
  readonly initialState: State
  readonly evolve: (state: State, event: Event) => State
  readonly decide: (command: Command, state: State) => Result.Result<ReadonlyArray<Event>, DomainError>
}

/** A record's read model: the API document, and when it was soft-deleted. */
export interface Projected {
  readonly data: import("./json.js").JsonObject
  readonly deletedAt: string | null
}

/** Records stay recoverable this long after a soft delete; afterwards they are purged. */
export const RECOVERY_WINDOW_MILLIS = 30 * 24 * 60 * 60 * 1000
