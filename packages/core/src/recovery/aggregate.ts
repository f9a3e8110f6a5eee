import type { Aggregate } from "../aggregate.js"
import type { RecoveryCommand } from "./commands.js"
import { recoveryDecider, type RecoveryState } from "./decider.js"
import { RecoveryEvent } from "./events.js"

/**
 * A webhook's recovery job. It has no document: the job is read by folding its stream (one event
 * per chunk), and the webhook's document names the job while it runs, which is how any host finds it.
 */
export const recoveryAggregate: Aggregate<RecoveryCommand, RecoveryEvent, RecoveryState> = {
  name: "recovery",
  prefix: "rcv",
  decider: recoveryDecider,
  events: RecoveryEvent,
  project: null,
  documents: () => [],
  collections: [],
  rebuilt: false
}
