import { type DealRule, fieldsAfter, stageAfter, ValidationError } from "@dealstream/core"

const needed = ["value", "expected_close_date"] as const

/**
 * A deal in the stage named Proposal has a value and a close date: entering it without them is
 * refused, and so is clearing one while the deal is there. A rule is pure: it sees the command,
 * the deal before it, and what the engine decided (the events, the deal after them).
 */
export const proposalNeedsValueAndDate: DealRule = (command, _state, decision) => {
  if (stageAfter(command, decision)?.name !== "Proposal") return
  const fields = fieldsAfter(decision)
  const missing = needed.filter((key) => fields[key] === null || fields[key] === undefined)
  if (missing.length > 0) return ValidationError.of(missing.map((path) => ({ path, message: "is required while the deal is in Proposal" })))
}

/**
 * The same rule, broken on purpose as rules often are: it guards the stage-move endpoint only, and
 * forgets that creating a deal in a stage, or a PATCH of `stage_id`, puts a deal in Proposal too.
 */
export const brokenProposalRule: DealRule = (command, state, decision) =>
  command.type === "MoveStage" ? proposalNeedsValueAndDate(command, state, decision) : undefined
