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
      numRuns: 300,
      // A fixed seed: which short sequence the shrinker settles on depends on the run (a deal created
      // in Proposal, or a stage appended first so that a stage index lands on Proposal), and an
      // example should show the same thing every time. Drop it to explore.
      seed: 42
    })
    expect(result.failed).toBe(true)
    if (!result.failed) return
    // `result.report` prints the sequence, one command a line, and what broke after which.
    expect(result.violation.invariant, result.report).toBe("a deal in Proposal has a value and a close date")
    // A short sequence whose last command puts a deal in Proposal past the broken rule: created or
    // patched into it (the rule guards moves only), after at most one command that sets the scene.
    expect(result.counterexample.length, result.report).toBeLessThanOrEqual(2)
    expect(["createDeal", "updateDeal"], result.report).toContain(result.counterexample.at(-1)?.kind)
  })
})
