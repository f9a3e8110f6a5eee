import type { AnyAggregate } from "../../aggregate.js"
import { activityAggregate } from "../../activity/index.js"
import { apiKeyAggregate } from "../../apiKey/index.js"
import { companyAggregate } from "../../company/index.js"
import { contactAggregate } from "../../contact/index.js"
import { customFieldAggregate } from "../../customField/index.js"
import { dealAggregate } from "../../deal/index.js"
import { deliveryAggregate } from "../../delivery/index.js"
import { pipelineAggregate } from "../../pipeline/index.js"
import { recoveryAggregate } from "../../recovery/index.js"
import { webhookAggregate } from "../../webhook/index.js"
import { workspaceAggregate } from "../../workspace/index.js"

/**
 * Every kind of record the engine stores, by the descriptor next to its decider. Rebuild walks them
 * (in this order), and so does the purge of expired records. A new record type is its folder and one
 * line here.
 */
export const aggregates: ReadonlyArray<AnyAggregate> = [
  contactAggregate,
  dealAggregate,
  activityAggregate,
  companyAggregate,
  pipelineAggregate,
  webhookAggregate,
  deliveryAggregate,
  customFieldAggregate,
  apiKeyAggregate,
  workspaceAggregate,
  recoveryAggregate
]
