import { describe, expect } from "@effect/vitest"
import { RECOVERY_WINDOW_MILLIS } from "../decider.js"
import { contactPatch, contactScript, createContact } from "../testing/arbitraries/contact.js"
import { incrementalProblems } from "../testing/invariants/rebuild.js"
import { restoreProblems } from "../testing/invariants/restore.js"
import { prop } from "../testing/property.js"
import { traceCommands } from "../testing/trace.js"
import { contactAggregate } from "./aggregate.js"

// One contact's life (the harness's script): updates, deletes, restores and purges, the gaps between
// them sometimes past the 30-day recovery window.
describe("contact properties", () => {
  prop("a restore within 30 days gives back the document as it was before the delete, and only then", [contactScript], ([script]) => {
    const { steps } = traceCommands(contactAggregate, script)
    expect(restoreProblems(steps)).toEqual([])
    let deletedAt = Number.NaN
    for (const { command, events } of steps) {
      if (events.some((e) => e.type === "contact.deleted")) deletedAt = Date.parse(command.at)
      if (events.some((e) => e.type === "contact.restored")) {
        expect(Date.parse(command.at) - deletedAt).toBeLessThanOrEqual(RECOVERY_WINDOW_MILLIS)
      }
    }
  })

  prop("a patch applied twice changes nothing the second time", [createContact, contactPatch], ([create, fields]) => {
    const update = { type: "UpdateContact" as const, id: create.id, at: create.at, fields }
    const { history } = traceCommands(contactAggregate, [create, update, update])
    expect(history.filter((e) => e.type === "contact.updated").length).toBeLessThanOrEqual(1)
  })

  prop("the documents written command by command are those a rebuild writes from the whole stream", [contactScript], ([script]) => {
    expect(incrementalProblems(contactAggregate, traceCommands(contactAggregate, script))).toEqual([])
  })

  prop(
    "a purged contact has no document and takes no command but a purge's refusal",
    [contactScript],
    ([script]) => {
      const { steps } = traceCommands(contactAggregate, script)
      const purgedAt = steps.findIndex(({ events }) => events.some((e) => e.type === "contact.purged"))
      if (purgedAt < 0) return
      for (const step of steps.slice(purgedAt)) expect(step.after).toBeNull()
      for (const step of steps.slice(purgedAt + 1)) expect(step.error?._tag).toBe("NotFound")
    },
    { fastCheck: { numRuns: 200 } }
  )
})
