import * as Testing from "@dealstream/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import type { Decider } from "../decider.js"
import { Conflict } from "../errors.js"
import { DeciderSpecification } from "./deciderSpecification.js"

// What `@dealstream/core/testing` gives embedders, through the package's own entry.

type Opened = { readonly type: "opened"; readonly data: { readonly id: string } }
const door: Decider<{ readonly open: string }, Opened, boolean> = {
  initialState: false,
  evolve: () => true,
  decide: ({ open }, isOpen) =>
    isOpen ? Result.fail(new Conflict({ message: "already open", details: [] })) : Result.succeed([{ type: "opened", data: { id: open } }])
}

describe("@dealstream/core/testing", () => {
  it("exports DeciderSpecification, the one the aggregates' specifications use", () => {
    expect(Testing.DeciderSpecification).toBe(DeciderSpecification)
    const given = Testing.DeciderSpecification.for(door)
    given([])
      .when({ open: "d1" })
      .then([{ type: "opened", data: { id: "d1" } }])
    given([{ type: "opened", data: { id: "d1" } }])
      .when({ open: "d1" })
      .thenFails("Conflict")
  })

  it("exports the arbitraries, the trace and the invariants", () => {
    for (const family of [Testing.dealArbitraries, Testing.contactArbitraries, Testing.pipelineArbitraries, Testing.webhookArbitraries]) {
      expect(Object.keys(family)).toEqual(expect.arrayContaining(["commands", "command", "history", "events", "event"]))
    }
    expect(typeof Testing.traceCommands).toBe("function")
    expect(typeof Testing.timelineProblems).toBe("function")
    expect(typeof Testing.restoreProblems).toBe("function")
    expect(typeof Testing.incrementalProblems).toBe("function")
  })

  it("still exports the contract suites and prop", () => {
    expect(typeof Testing.storageContractSuite).toBe("function")
    expect(typeof Testing.deliveryQueueContractSuite).toBe("function")
    expect(typeof Testing.prop).toBe("function")
  })
})
