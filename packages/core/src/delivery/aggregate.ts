import { type Aggregate, recordDocument } from "../aggregate.js"
import type { DeliveryCommand } from "./commands.js"
import { deliveryDecider, type DeliveryState } from "./decider.js"
import { DeliveryEvent } from "./events.js"
import { projectDelivery } from "./projection.js"

export const deliveryAggregate: Aggregate<DeliveryCommand, DeliveryEvent, DeliveryState> = {
  name: "delivery",
  prefix: "dlv",
  decider: deliveryDecider,
  events: DeliveryEvent,
  project: projectDelivery,
  documents: recordDocument("delivery", projectDelivery),
  collections: ["delivery"],
  redactedInPlace: true,
  rebuilt: false
}
