import { type Aggregate, recordDocument } from "../aggregate.js"
import { uniqueFieldTaken } from "../record/uniqueField.js"
import type { ContactCommand } from "./commands.js"
import { contactDecider, type ContactState } from "./decider.js"
import { ContactEvent } from "./events.js"
import { contactUniqueKey, projectContact } from "./projection.js"

export const contactAggregate: Aggregate<ContactCommand, ContactEvent, ContactState> = {
  name: "contact",
  prefix: "con",
  decider: contactDecider,
  events: ContactEvent,
  project: projectContact,
  documents: recordDocument("contact", projectContact, { searched: "contact", uniqueKey: contactUniqueKey }),
  searched: true,
  collections: ["contact"],
  rebuilt: true,
  purge: (id, at) => ({ type: "PurgeContact", id, at }),
  // Live contacts share one email space (the document's unique key).
  uniqueKeyTaken: uniqueFieldTaken("contact", "email")
}
