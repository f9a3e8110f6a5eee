import * as fc from "fast-check"
import type { Projected } from "../../decider.js"
import { contactAggregate } from "../../contact/aggregate.js"
import type { ContactCommand, CreateContact, UpdateContact } from "../../contact/commands.js"
import type { ContactCreated, ContactEvent, ContactUpdated } from "../../contact/events.js"
import type { JsonObject } from "../../json.js"
import { traceCommands } from "../trace.js"
import { idOf, instant, orNull, streamScript, word } from "./common.js"

const email = fc
  .tuple(fc.constantFrom("ada", "Ada", "grace", "kim"), fc.nat(5), fc.constantFrom("example.com", "X.io"))
  .map(([name, n, domain]) => `${name}${n}@${domain}`)

const standardValues = {
  email,
  first_name: orNull(word),
  last_name: orNull(word),
  phone: orNull(fc.constantFrom("+44 20 7946 0958", "555-0100")),
  title: orNull(fc.constantFrom("CTO", "Buyer")),
  company_id: orNull(fc.constantFrom("comp_1", "comp_2")),
  source: orNull(fc.constantFrom("webinar", "referral")),
  owner_id: orNull(fc.constantFrom("usr_1", "usr_2"))
}

/** A contact's fields as `parseContactCreate` leaves them: every standard field, null where absent. */
export const contactFields: fc.Arbitrary<JsonObject> = fc.record(standardValues)

/** A patch as `parseContactPatch` leaves it: some standard keys. */
export const contactPatch: fc.Arbitrary<JsonObject> = fc.record(standardValues, { requiredKeys: [] })

const contactId = idOf("con")

export const createContact: fc.Arbitrary<CreateContact> = fc
  .record({ id: contactId, at: instant, fields: contactFields })
  .map((c) => ({ type: "CreateContact", ...c }))
export const updateContact: fc.Arbitrary<UpdateContact> = fc
  .record({ id: contactId, at: instant, fields: contactPatch })
  .map((c) => ({ type: "UpdateContact", ...c }))
const idAt = <T extends "DeleteContact" | "RestoreContact" | "PurgeContact">(type: T) =>
  fc.record({ id: contactId, at: instant }).map((c) => ({ type, ...c }))

/** After its creation, one contact's updates, deletes, restores and purges (gaps sometimes past 30 days). */
export const contactScript: fc.Arbitrary<ReadonlyArray<ContactCommand>> = contactId.chain((id) =>
  streamScript<ContactCommand>(
    createContact.map((c) => ({ ...c, id })),
    fc
      .oneof(
        { arbitrary: updateContact, weight: 4 },
        { arbitrary: idAt("DeleteContact"), weight: 2 },
        { arbitrary: idAt("RestoreContact"), weight: 2 },
        { arbitrary: idAt("PurgeContact"), weight: 1 }
      )
      .map((c) => ({ ...c, id })),
    30
  )
)

export const contactHistory: fc.Arbitrary<ReadonlyArray<ContactEvent>> = contactScript.map(
  (s) => traceCommands(contactAggregate, s).history
)

export const contactCreated: fc.Arbitrary<ContactCreated> = createContact.map(({ at, fields, id }) => ({
  type: "contact.created",
  data: { id, fields, at }
}))
export const contactUpdated: fc.Arbitrary<ContactUpdated> = fc
  .tuple(
    contactPatch.filter((p) => Object.keys(p).length > 0),
    instant
  )
  .map(([changed, at]) => ({ type: "contact.updated", data: { changed, at } }))
const atOnly = <T extends "contact.deleted" | "contact.restored" | "contact.purged">(type: T) =>
  instant.map((at) => ({ type, data: { at } }))

export const contactDocument: fc.Arbitrary<Projected> = contactScript
  .map((s) => traceCommands(contactAggregate, s).document)
  .filter((d): d is Projected => d !== null)

export const contactArbitraries = {
  commands: {
    CreateContact: createContact,
    UpdateContact: updateContact,
    DeleteContact: idAt("DeleteContact"),
    RestoreContact: idAt("RestoreContact"),
    PurgeContact: idAt("PurgeContact")
  },
  command: fc.oneof(
    createContact,
    updateContact,
    idAt("DeleteContact"),
    idAt("RestoreContact"),
    idAt("PurgeContact")
  ) as fc.Arbitrary<ContactCommand>,
  script: contactScript,
  history: contactHistory,
  events: {
    "contact.created": contactCreated,
    "contact.updated": contactUpdated,
    "contact.deleted": atOnly("contact.deleted"),
    "contact.restored": atOnly("contact.restored"),
    "contact.purged": atOnly("contact.purged")
  },
  event: fc.oneof(
    contactCreated,
    contactUpdated,
    atOnly("contact.deleted"),
    atOnly("contact.restored"),
    atOnly("contact.purged")
  ) as fc.Arbitrary<ContactEvent>,
  document: contactDocument,
  fields: contactFields,
  patch: contactPatch
}
