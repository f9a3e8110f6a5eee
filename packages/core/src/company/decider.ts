import type { Decider } from "../decider.js"
import { recordLifecycle, type RecordState } from "../record/lifecycle.js"
import type { CompanyCommand } from "./commands.js"
import type { CompanyEvent } from "./events.js"

export type CompanyState = RecordState

export const companyLife = recordLifecycle<"company", CompanyEvent>("company", "companies")
const life = companyLife

/** A company has nothing to check beyond its fields and its life. */
export const companyDecider: Decider<CompanyCommand, CompanyEvent, CompanyState> = {
  initialState: { status: "absent" },
  evolve: life.evolve,
  decide: (command, state) => life.decide(state, command)
}
