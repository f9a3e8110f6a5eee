import { checkModel, everyDeal, standardInvariants, workspaceCommands } from "@dealstream/core/testing"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "vitest"
import { brokenProposalRule, proposalNeedsValueAndDate } from "./proposalRule.js"

// What must hold after every command, whatever the command: the invariant the rule is for.
const proposalsHaveValueAndDate = everyDeal("a deal in Proposal has a value and a close date", ({ deal, stage }) =>
  stage?.name === "Proposal" && (deal["value"] === null || deal["expected_close_date"] === null) ? "is in Proposal without them" : undefined
)

// The rule is about deals: deal creates and patches come several times as often as by default (every
// other kind still comes), so that a run puts a deal in Proposal often enough to test the rule.
const commands = workspaceCommands({ weights: { createDeal: 20, updateDeal: 15, moveStage: 6 } })

// The same search for both rules, enough to catch the broken one whatever the seed: over 90 seeds
// its first failing run was at most the 49th, and one run in ten fails on average, so 120 runs miss
// it about once in 400,000 seeds. The correct rule passing as many runs then means something.
const RUNS = 120

describe("a stage rule of one's own, property-tested", () => {
  it("holds over random command sequences, with dealstream's own invariants", async () => {
    const result = await checkModel({
      storage: MemoryStorage.layer,
      dealRules: [proposalNeedsValueAndDate],
      invariants: [...standardInvariants, proposalsHaveValueAndDate],
      commands,
      numRuns: RUNS
    })
    if (result.failed) throw new Error(result.report)
    expect(result.numRuns).toBe(RUNS)
  }, 60_000)

  it("catches the broken rule and shrinks the failure to a minimal command sequence", async () => {
    const result = await checkModel({
      storage: MemoryStorage.layer,
      dealRules: [brokenProposalRule],
      invariants: [proposalsHaveValueAndDate],
      commands,
      numRuns: RUNS,
      // A fixed seed, though RUNS catch the rule under any: which short sequence the shrinker settles
      // on depends on the run (a deal created in Proposal, or a stage appended first so that a stage
      // index lands on Proposal; once in 30 seeds, three commands), and an example should show the
      // same thing every time. Drop it to explore.
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
  }, 60_000)
})
