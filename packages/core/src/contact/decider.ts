import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError } from "../errors.js"
import { ValidationError } from "../errors.js"
import { recordLifecycle, type RecordState } from "../record/lifecycle.js"
import type { ContactCommand } from "./commands.js"
import { type NamedCompany, patchedCompanies } from "./companyLinks.js"
import type { ContactEvent } from "./events.js"

export type ContactState = RecordState

export const contactLife = recordLifecycle<"contact", ContactEvent>("contact", "contacts")

type Decision = Result.Result<ReadonlyArray<ContactEvent>, DomainError>

/** Every company written must be live: refused at the key the client named it. */
const unknownCompanies = (unknown: ReadonlyArray<NamedCompany> | undefined): Decision | null =>
  unknown === undefined || unknown.length === 0
    ? null
    : Result.fail(ValidationError.of(unknown.map(({ id, path }) => ({ path, message: `company ${id} does not exist` }))))

const decide = (command: ContactCommand, state: ContactState): Decision => {
  const { at, id } = command
  switch (command.type) {
    case "CreateContact":
      // The id clash comes first: a replayed create is a conflict whatever its companies are now.
      return state.status !== "absent"
        ? contactLife.create(state, id, command.fields, at)
        : (unknownCompanies(command.unknownCompanies) ?? contactLife.create(state, id, command.fields, at))
    case "UpdateContact": {
      if (state.status !== "live") return contactLife.notFound(id)
      const refused = unknownCompanies(command.unknownCompanies)
      if (refused !== null) return refused
      const fields =
        command.fields["company_ids"] === undefined
          ? command.fields
          : { ...command.fields, ...patchedCompanies(command.fields, state.fields, new Set(command.trashedCompanyIds ?? [])) }
      return Result.succeed(contactLife.changes(state.fields, fields, at))
    }
    default:
      return contactLife.decide(state, command)
  }
}

export const contactDecider: Decider<ContactCommand, ContactEvent, ContactState> = {
  initialState: { status: "absent" },
  evolve: contactLife.evolve,
  decide
}
