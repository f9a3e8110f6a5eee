import { Result } from "effect"
import type { Decider } from "../decider.js"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import type { DomainError } from "../errors.js"
import { Conflict, NotFound } from "../errors.js"
import { changedFields } from "../field/changes.js"
import type { JsonObject } from "../json.js"
import type { CompanyCommand } from "./commands.js"
import type { CompanyEvent } from "./events.js"

export type CompanyState =
  | { readonly status: "absent" }
  | { readonly status: "live"; readonly fields: JsonObject }
  | { readonly status: "deleted"; readonly fields: JsonObject; readonly deletedAt: string }
  | { readonly status: "purged" }

type Decision = Result.Result<ReadonlyArray<CompanyEvent>, DomainError>

/** The last millisecond of the window still restores; the purge takes only what is past it. */
const recoverable = (deletedAt: string, at: string): boolean => Date.parse(at) - Date.parse(deletedAt) <= RECOVERY_WINDOW_MILLIS

const notFound = (id: string): Decision => Result.fail(new NotFound({ resource: "company", id }))

const decide = (command: CompanyCommand, state: CompanyState): Decision => {
  const { at, id } = command
  switch (command.type) {
    case "CreateCompany":
      // The engine makes the id for this command: finding it taken is a replay or a bug, not a client's mistake.
      if (state.status !== "absent") {
        return Result.fail(new Conflict({ message: `company ${id} already exists`, details: [{ path: "id", message: "already exists", id }] }))
      }
      return Result.succeed([{ type: "company.created", data: { id, fields: command.fields, at } }])
    case "UpdateCompany": {
      if (state.status !== "live") return notFound(id)
      const changed = changedFields(state.fields, command.fields)
      // A patch that changes nothing records nothing: no event, no webhook, no new version.
      return Result.succeed(Object.keys(changed).length === 0 ? [] : [{ type: "company.updated", data: { changed, at } }])
    }
    case "DeleteCompany":
      return state.status === "live" ? Result.succeed([{ type: "company.deleted", data: { at } }]) : notFound(id)
    case "RestoreCompany":
      return state.status === "deleted" && recoverable(state.deletedAt, at)
        ? Result.succeed([{ type: "company.restored", data: { at } }])
        : notFound(id)
    case "PurgeCompany":
      if (state.status !== "live" && state.status !== "deleted") return notFound(id)
      if (state.status === "deleted" && !recoverable(state.deletedAt, at)) return Result.succeed([{ type: "company.purged", data: { at } }])
      return Result.fail(
        new Conflict({
          message: `company ${id} is still recoverable`,
          details: [{ path: "", message: "only companies deleted more than 30 days ago can be purged", id }]
        })
      )
  }
}

const evolve = (state: CompanyState, event: CompanyEvent): CompanyState => {
  switch (event.type) {
    case "company.created":
      return { status: "live", fields: event.data.fields }
    case "company.updated":
      return state.status === "live" ? { status: "live", fields: { ...state.fields, ...event.data.changed } } : state
    case "company.deleted":
      return state.status === "live" ? { status: "deleted", fields: state.fields, deletedAt: event.data.at } : state
    case "company.restored":
      return state.status === "deleted" ? { status: "live", fields: state.fields } : state
    case "company.purged":
      return { status: "purged" }
  }
}

export const companyDecider: Decider<CompanyCommand, CompanyEvent, CompanyState> = {
  initialState: { status: "absent" },
  evolve,
  decide
}
