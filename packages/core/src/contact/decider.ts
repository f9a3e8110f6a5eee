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

export const contactDecider: Decider<ContactCommand, ContactEvent, ContactState> = {
  initialState: { status: "absent" },
  evolve: contactLife.evolve,
  decide: contactLife.decideWith<ContactCommand>({
    create: ({ at, fields, id, unknownCompanies: unknown }, state) =>
      unknownCompanies(unknown) ?? contactLife.create(state, id, fields, at),
    update: ({ at, fields, trashedCompanyIds, unknownCompanies: unknown }, state) => {
      const refused = unknownCompanies(unknown)
      if (refused !== null) return refused
      const patch =
        fields["company_ids"] === undefined
          ? fields
          : { ...fields, ...patchedCompanies(fields, state.fields, new Set(trashedCompanyIds ?? [])) }
      return Result.succeed(contactLife.changes(state.fields, patch, at))
    }
  })
}
