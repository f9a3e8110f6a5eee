// Seeded events put to core's deciders: each stored event must be exactly what the decider records
// for the command it stands for (a create of its fields, a patch of its changes, a move to its
// stage), given the events of its stream before it. What the SQL of a seed wrote by hand is thus
// held to what the engine would have written, field by field.
import { contactDecider, contactFields, dealDecider, dealFields, parseContactPatch } from "@dealstream/core"
import { isDeepStrictEqual } from "node:util"
import { engineCreated, settled } from "./engineShapes.mjs"

const deciders = { contact: contactDecider, deal: dealDecider }

const tables = { contact: contactFields, deal: dealFields }

/** A created record's fields as a body gives them: without the read-only ones its decider sets (a deal's closed_at). */
const bodyOf = (kind, fields) => {
  const readOnly = new Set(tables[kind].standard.filter((field) => field.check === null).map((field) => field.name))
  return Object.fromEntries(Object.entries(fields).filter(([key]) => !readOnly.has(key)))
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value)

/** Where two JSON values differ, key path by key path: `fields.company_id: absent here, core's null`. */
const differences = (stored, core, path = "") => {
  if (isDeepStrictEqual(stored, core)) return []
  if (!isObject(stored) || !isObject(core)) {
    const shown = (value) => (value === undefined ? "absent" : JSON.stringify(value))
    return [`${path || "the event"}: ${shown(stored)} here, core's ${shown(core)}`]
  }
  const keys = [...new Set([...Object.keys(core), ...Object.keys(stored)])]
  return keys.flatMap((key) => differences(stored[key], core[key], path === "" ? key : `${path}.${key}`))
}

/** The events core decides for the command `event` stands for; only the types the seeds write. */
const decideAgain = (streamId, event, state, pipeline) => {
  const { data } = event
  switch (event.type) {
    case "contact.created":
    case "deal.created":
      if (state.status !== "absent") throw new Error(`${event.type} of ${streamId}, which already exists`)
      return [
        engineCreated(event.type.split(".")[0], { id: data.id, at: data.at, body: bodyOf(event.type.split(".")[0], data.fields), pipeline })
      ]
    case "contact.updated": {
      const fields = settled(parseContactPatch(data.changed, []), `core's contact patch parser refuses ${JSON.stringify(data.changed)}`)
      return settled(
        contactDecider.decide({ type: "UpdateContact", id: streamId, at: data.at, fields }, state),
        `core's contact decider refuses the patch of ${streamId}`
      )
    }
    case "deal.stage_changed":
      return settled(
        dealDecider.decide(
          {
            type: "MoveStage",
            id: streamId,
            at: data.at,
            stageId: data.to_stage_id,
            reason: data.reason,
            entryId: data.entry_id,
            pipeline
          },
          state
        ),
        `core's deal decider refuses the move of ${streamId}`
      )
    default:
      throw new Error(`${event.type} of ${streamId}: not a type the seeds write, so not one this check knows`)
  }
}

/**
 * A checker of events fed to it in their log's order, `pipeline` being the deals' (pipelineInfo):
 * `check(streamId, { type, data })` throws when core's decider would not record exactly that event.
 */
export const replayer = (pipeline) => {
  const states = new Map()
  return (streamId, event) => {
    const decider = deciders[event.type.split(".")[0]]
    if (decider === undefined) throw new Error(`${event.type} of ${streamId}: no decider of core's for it here`)
    const state = states.get(streamId) ?? decider.initialState
    const decided = decideAgain(streamId, event, state, pipeline)
    if (decided.length !== 1 || decided[0].type !== event.type) {
      throw new Error(`${event.type} of ${streamId}: core's decider records ${decided.map((e) => e.type).join(", ") || "nothing"} for it`)
    }
    const differ = differences(event.data, decided[0].data)
    if (differ.length > 0) {
      throw new Error(
        `${event.type} of ${streamId} is not what core's decider records for it: ${differ.join("; ")} ` +
          `(stored ${JSON.stringify(event.data)})`
      )
    }
    states.set(streamId, decider.evolve(state, event))
  }
}
