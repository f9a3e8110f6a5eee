import { checkModel, everyDeal, standardInvariants } from "@dealstream/core/testing"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "vitest"
import { brokenProposalRule, proposalNeedsValueAndDate } from "./proposalRule.js"

// What must hold after every command, whatever the command: the invariant the rule is for.
const proposalsHaveValueAndDate = everyDeal("a deal in Proposal has a value and a close date", ({ deal, stage }) =>
  stage?.name === "Proposal" && (deal["value"] === null || deal["expected_close_date"] === null) ? "is in Proposal without them" : undefined)

describe("a stage rule of one's own, property-tested", () => {
  it("holds over random command sequences, with dealstream's own invariants", async () => {
    const result = await checkModel({
      storage: MemoryStorage.layer,
      dealRules: [proposalNeedsValueAndDate],
      invariants: [...standardInvariants, proposalsHaveValueAndDate]
    })
    if (result.failed) throw new Error(result.report)
  })

  it("catches the broken rule and shrinks the failure to a minimal command sequence", async () => {
    const result = await checkModel({
      storage: MemoryStorage.layer,
      dealRules: [brokenProposalRule],
      invariants: [proposalsHaveValueAndDate],
      numRuns: 300
    })
    expect(result.failed).toBe(true)
    if (!result.failed) return
    // `result.report` prints the sequence, one command a line, and what broke after which.
    expect(result.violation.invariant, result.report).toBe("a deal in Proposal has a value and a close date")
    // One command suffices: a deal created straight in Proposal without a value (or a close date).
    expect(result.counterexample, result.report).toHaveLength(1)
    expect(result.counterexample[0], result.report).toMatchObject({ kind: "createDeal" })
  })
})
