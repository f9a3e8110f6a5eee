import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { ChangeFeedPosition } from "../storage/changeFeed.js"
import type { DomainError } from "../errors.js"
import { Conflict, NotFound } from "../errors.js"
import type { RecoveryCommand } from "./commands.js"
import type { RecoveryEvent } from "./events.js"

export interface RecoveryJob {
  readonly id: string
  readonly webhookId: string
  readonly since: string
  readonly status: "running" | "done" | "failed"
  /** Null until the first chunk fixed it. */
  readonly until: ChangeFeedPosition | null
  /** The last position read, null before the first: the walk goes on after it. */
  readonly position: ChangeFeedPosition | null
  readonly scheduled: number
  readonly skipped: number
  readonly reason: string | null
  readonly createdAt: string
  readonly finishedAt: string | null
  /** Who recorded the last chunk, and when: a runner leaves a job another one is moving alone. */
  readonly runner: string | null
  readonly lastAt: string
}

export type RecoveryState = { readonly status: "absent" } | { readonly status: "present"; readonly job: RecoveryJob }

type Decision = Result.Result<ReadonlyArray<RecoveryEvent>, DomainError>

const decide = (command: RecoveryCommand, state: RecoveryState): Decision => {
  const { at, id } = command
  if (command.type === "StartRecovery") {
    return state.status === "absent"
      ? Result.succeed([{ type: "recovery.started", data: { id, webhook_id: command.webhookId, since: command.since, at } }])
      : Result.fail(new Conflict({ message: `recovery ${id} already exists`, details: [{ path: "id", message: "already exists", id }] }))
  }
  if (state.status === "absent") return Result.fail(new NotFound({ resource: "recovery", id }))
  // A runner that lost the race to finish, or one late with a chunk, changes nothing.
  if (state.job.status !== "running") return Result.succeed([])
  switch (command.type) {
    case "RecordRecoveryProgress": {
      const { position, runner, scheduled, skipped, until } = command
      return Result.succeed([{ type: "recovery.progressed", data: { runner, until, position, scheduled, skipped, at } }])
    }
    case "FinishRecovery":
      return Result.succeed([{ type: "recovery.finished", data: { status: command.status, reason: command.reason, at } }])
  }
}

const evolve = (state: RecoveryState, event: RecoveryEvent): RecoveryState => {
  switch (event.type) {
    case "recovery.started": {
      const { at, id, since, webhook_id } = event.data
      return {
        status: "present",
        job: {
          id,
          webhookId: webhook_id,
          since,
          status: "running",
          until: null,
          position: null,
          scheduled: 0,
          skipped: 0,
          reason: null,
          createdAt: at,
          finishedAt: null,
          runner: null,
          lastAt: at
        }
      }
    }
    case "recovery.progressed": {
      if (state.status === "absent") return state
      const { at, position, runner, scheduled, skipped, until } = event.data
      const job = state.job
      // A chunk recorded before the walk followed the feed's order names sequences, which say
      // nothing of it: the job walks again from the start, to a head it takes again. Events it
      // already scheduled are covered by their deliveries and skipped (and counted again).
      const ordered = typeof position !== "number" && typeof until !== "number"
      return {
        status: "present",
        job: {
          ...job,
          until: ordered ? until : null,
          position: ordered ? position : null,
          scheduled: job.scheduled + scheduled,
          skipped: job.skipped + skipped,
          runner,
          lastAt: at
        }
      }
    }
    case "recovery.finished":
      return state.status === "absent"
        ? state
        : {
            status: "present",
            job: { ...state.job, status: event.data.status, reason: event.data.reason, finishedAt: event.data.at, lastAt: event.data.at }
          }
  }
}

export const recoveryDecider: Decider<RecoveryCommand, RecoveryEvent, RecoveryState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}

/** The job as the API shows it. */
export const recoveryView = (job: RecoveryJob) => ({
  id: job.id,
  webhook_id: job.webhookId,
  since: job.since,
  status: job.status,
  scheduled: job.scheduled,
  skipped: job.skipped,
  created_at: job.createdAt,
  finished_at: job.finishedAt
})
