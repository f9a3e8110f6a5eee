import type { Decider } from "../decider.js"
import { recordLifecycle, type RecordState } from "../record/lifecycle.js"
import type { CompanyCommand } from "./commands.js"
import type { CompanyEvent } from "./events.js"

export type CompanyState = RecordState

export const companyLife = recordLifecycle<"company", CompanyEvent>("company", "companies")
const life = companyLife

const decide = (command: CompanyCommand, state: CompanyState) => {
  const { at, id } = command
  switch (command.type) {
    case "CreateCompany":
      return life.create(state, id, command.fields, at)
    case "UpdateCompany":
      return life.update(state, id, command.fields, at)
    case "DeleteCompany":
      return life.remove(state, id, at)
    case "RestoreCompany":
      return life.restore(state, id, at)
    case "PurgeCompany":
      return life.purge(state, id, at)
  }
}

export const companyDecider: Decider<CompanyCommand, CompanyEvent, CompanyState> = {
  initialState: { status: "absent" },
  evolve: life.evolve,
  decide
}
