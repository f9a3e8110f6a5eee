import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as fc from "fast-check"
import type { AnyAggregate } from "../../aggregate.js"
import { apiKeyAggregate } from "../../apiKey/aggregate.js"
import { contactAggregate } from "../../contact/aggregate.js"
import { customFieldAggregate } from "../../customField/aggregate.js"
import { dealAggregate } from "../../deal/aggregate.js"
import { deliveryAggregate } from "../../delivery/aggregate.js"
import { pipelineAggregate } from "../../pipeline/aggregate.js"
import { webhookAggregate } from "../../webhook/aggregate.js"
import { workspaceAggregate } from "../../workspace/aggregate.js"
import { traceCommands } from "../trace.js"
import {
  apiKeyArbitraries,
  contactArbitraries,
  customFieldArbitraries,
  dealArbitraries,
  dealCommandsOf,
  deliveryArbitraries,
  pipelineArbitraries,
  webhookArbitraries,
  workspaceArbitraries
} from "./index.js"

interface Family {
  readonly aggregate: AnyAggregate
  readonly commands: Record<string, fc.Arbitrary<{ readonly type: string }>>
  readonly events: Record<string, fc.Arbitrary<{ readonly type: string; readonly data: unknown }>>
  readonly history: fc.Arbitrary<ReadonlyArray<{ readonly type: string }>>
  /** Scripts of one stream; the deal's is a scenario turned into commands. */
  readonly scripts: fc.Arbitrary<ReadonlyArray<unknown>>
}

const families: Record<string, Family> = {
  contact: { aggregate: contactAggregate, ...contactArbitraries, scripts: contactArbitraries.script },
  deal: { aggregate: dealAggregate, ...dealArbitraries, scripts: dealArbitraries.scenario.map(dealCommandsOf) },
  pipeline: { aggregate: pipelineAggregate, ...pipelineArbitraries, scripts: pipelineArbitraries.script },
  webhook: { aggregate: webhookAggregate, ...webhookArbitraries, scripts: webhookArbitraries.script },
  delivery: { aggregate: deliveryAggregate, ...deliveryArbitraries, scripts: deliveryArbitraries.script },
  customField: { aggregate: customFieldAggregate, ...customFieldArbitraries, scripts: customFieldArbitraries.script },
  apiKey: { aggregate: apiKeyAggregate, ...apiKeyArbitraries, scripts: apiKeyArbitraries.script },
  workspace: { aggregate: workspaceAggregate, ...workspaceArbitraries, scripts: workspaceArbitraries.script }
}

const decodes = (aggregate: AnyAggregate, event: unknown) => Result.isSuccess(Schema.decodeUnknownResult(aggregate.events)(event))

describe("the harness's arbitraries", () => {
  for (const [name, family] of Object.entries(families)) {
    describe(name, () => {
      it("give events of every type that its Schema accepts, named by their key", () => {
        for (const [type, arbitrary] of Object.entries(family.events)) {
          for (const event of fc.sample(arbitrary, 30)) {
            expect(event.type).toBe(type)
            expect(decodes(family.aggregate, event), JSON.stringify(event)).toBe(true)
          }
        }
      })

      it("give commands of every type, named by their key", () => {
        for (const [type, arbitrary] of Object.entries(family.commands)) {
          for (const command of fc.sample(arbitrary, 20)) expect(command.type).toBe(type)
        }
      })

      it("give histories its Schema accepts, and scripts whose commands of every type are accepted", () => {
        for (const history of fc.sample(family.history, 30)) {
          for (const event of history) expect(decodes(family.aggregate, event), JSON.stringify(event)).toBe(true)
        }
        // Every command type a script uses is accepted in some script: the scripts reach every
        // decision, not just the refusals.
        const accepted = new Set<string>()
        const used = new Set<string>()
        for (const script of fc.sample(family.scripts, 200)) {
          for (const step of traceCommands(family.aggregate, script as ReadonlyArray<never>).steps) {
            const type = (step.command as { type: string }).type
            used.add(type)
            if (step.error === null && step.events.length > 0) accepted.add(type)
          }
        }
        expect([...used].filter((type) => !accepted.has(type))).toEqual([])
        expect(used.size).toBeGreaterThan(0)
      })
    })
  }

  it("give documents as the projections make them", () => {
    for (const [name, arbitrary] of Object.entries({
      contact: contactArbitraries.document,
      deal: dealArbitraries.document,
      pipeline: pipelineArbitraries.document,
      webhook: webhookArbitraries.document,
      delivery: deliveryArbitraries.document,
      apiKey: apiKeyArbitraries.document
    })) {
      for (const doc of fc.sample(arbitrary, 20)) expect(typeof doc.data["id"], name).toBe("string")
    }
  })

  it("move a deal within its own pipeline, mostly", () => {
    let own = 0
    let all = 0
    for (const command of fc.sample(dealArbitraries.commands.MoveStage, 300)) {
      all++
      if (command.pipeline.stages.some((s) => s.id === command.stageId)) own++
    }
    expect(own / all).toBeGreaterThan(0.8)
    expect(own).toBeLessThan(all)
  })
})
