import { Result } from "effect"
import { changedFields } from "../field/changes.js"
import type { Decider } from "../decider.js"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import type { DomainError } from "../errors.js"
import { Conflict, NotFound, ValidationError } from "../errors.js"
import type { JsonObject } from "../json.js"
import type { ContactCommand } from "./commands.js"
import { type NamedCompany, patchedCompanies } from "./companyLinks.js"
import type { ContactEvent } from "./events.js"

export type ContactState =
  | { readonly status: "absent" }
  | { readonly status: "live"; readonly fields: JsonObject }
  | { readonly status: "deleted"; readonly fields: JsonObject; readonly deletedAt: string }
  | { readonly status: "purged" }

type Decision = Result.Result<ReadonlyArray<ContactEvent>, DomainError>

const withinRecoveryWindow = (deletedAt: string, at: string): boolean =>
  Date.parse(at) - Date.parse(deletedAt) <= RECOVERY_WINDOW_MILLIS

const notFound = (id: string): Decision => Result.fail(new NotFound({ resource: "contact", id }))

/** Every company written must be live: refused at the key the client named it. */
const unknownCompanies = (unknown: ReadonlyArray<NamedCompany> | undefined): Decision | null =>
  unknown === undefined || unknown.length === 0
    ? null
    : Result.fail(ValidationError.of(unknown.map(({ id, path }) => ({ path, message: `company ${id} does not exist` }))))

const decide = (command: ContactCommand, state: ContactState): Decision => {
  const { at, id } = command
  switch (command.type) {
    case "CreateContact":
      // Ids are fresh from the engine; a clash means a bug or a replayed command, never a user error.
      if (state.status !== "absent") {
        return Result.fail(new Conflict({ message: `contact ${id} already exists`, details: [{ path: "id", message: "already exists", id }] }))
      }
      return unknownCompanies(command.unknownCompanies) ?? Result.succeed([{ type: "contact.created", data: { id, fields: command.fields, at } }])
    case "UpdateContact": {
      if (state.status !== "live") return notFound(id)
      const refused = unknownCompanies(command.unknownCompanies)
      if (refused !== null) return refused
      const fields = command.fields["company_ids"] === undefined
        ? command.fields
        : { ...command.fields, ...patchedCompanies(command.fields, state.fields, new Set(command.trashedCompanyIds ?? [])) }
      const changed = changedFields(state.fields, fields)
      return Result.succeed(Object.keys(changed).length === 0 ? [] : [{ type: "contact.updated", data: { changed, at } }])
    }
    case "DeleteContact":
      return state.status === "live" ? Result.succeed([{ type: "contact.deleted", data: { at } }]) : notFound(id)
    case "RestoreContact":
      return state.status === "deleted" && withinRecoveryWindow(state.deletedAt, at)
        ? Result.succeed([{ type: "contact.restored", data: { at } }])
        : notFound(id)
    case "PurgeContact":
      if (state.status === "absent" || state.status === "purged") return notFound(id)
      return state.status === "deleted" && !withinRecoveryWindow(state.deletedAt, at)
        ? Result.succeed([{ type: "contact.purged", data: { at } }])
        : Result.fail(
          new Conflict({
            message: `contact ${id} is still recoverable`,
            details: [{ path: "", message: "only contacts deleted more than 30 days ago can be purged", id }]
          })
        )
  }
}

const evolve = (state: ContactState, event: ContactEvent): ContactState => {
  switch (event.type) {
    case "contact.created":
      return { status: "live", fields: event.data.fields }
    case "contact.updated":
      return state.status === "live" ? { status: "live", fields: { ...state.fields, ...event.data.changed } } : state
    case "contact.deleted":
      return state.status === "live" ? { status: "deleted", fields: state.fields, deletedAt: event.data.at } : state
    case "contact.restored":
      return state.status === "deleted" ? { status: "live", fields: state.fields } : state
    case "contact.purged":
      return { status: "purged" }
  }
}

export const contactDecider: Decider<ContactCommand, ContactEvent, ContactState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
