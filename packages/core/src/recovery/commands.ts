import type { ChangeFeedPosition } from "../storage/changeFeed.js"

/** A recovery job is created with the webhook's `webhook.recovery_started`, in the same commit. */
export interface StartRecovery {
  readonly type: "StartRecovery"
  readonly id: string
  readonly at: string
  readonly webhookId: string
  /** Events recorded at or after this instant are recovered. */
  readonly since: string
}

/**
 * One chunk of the walk, recorded with the deliveries it scheduled in one commit: the stream's
 * version is the lease, so two runners never record (nor schedule) the same chunk.
 */
export interface RecordRecoveryProgress {
  readonly type: "RecordRecoveryProgress"
  readonly id: string
  readonly at: string
  /** Which host's runner: others leave the job alone while it keeps making progress. */
  readonly runner: string
  /**
   * The last position of the walk, fixed by the first chunk (the workspace's head once the job was
   * visible): a position in the change feed's order, which survives a workspace's move between servers.
   */
  readonly until: ChangeFeedPosition
  /** The last position this chunk read. */
  readonly position: ChangeFeedPosition
  readonly scheduled: number
  readonly skipped: number
}

export interface FinishRecovery {
  readonly type: "FinishRecovery"
  readonly id: string
  readonly at: string
  readonly status: "done" | "failed"
  /** Why it failed (the webhook was deleted or turned failed); null when done. */
  readonly reason: string | null
}

export type RecoveryCommand = StartRecovery | RecordRecoveryProgress | FinishRecovery
