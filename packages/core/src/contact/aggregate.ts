import { type Aggregate, recordDocument } from "../aggregate.js"
import { Conflict } from "../errors.js"
import type { ContactCommand } from "./commands.js"
import { contactDecider, type ContactState } from "./decider.js"
import { ContactEvent } from "./events.js"
import { contactUniqueKey, projectContact } from "./projection.js"

/** Live contacts share one email space (the document's unique key). */
const emailTaken = (existingId: string, command: ContactCommand) =>
  command.type === "RestoreContact"
    ? new Conflict({
        message: "the contact's email is now used by another live contact",
        details: [{ path: "email", message: `is now used by ${existingId}`, id: existingId }]
      })
    : new Conflict({
        message: "a live contact with this email already exists",
        details: [{ path: "email", message: `is already used by ${existingId}`, id: existingId }]
      })

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
  uniqueKeyTaken: emailTaken
}
