// What every commit-path system writes: the same contact fields and the same stage walk.
import { createdFieldsFor, pipelineInfo } from "../engineShapes.mjs"

/** A contact as a CRM import would send it; `n` keeps emails unique within one database. */
export const contactFields = (tag, n) => ({
  email: `ada.${tag}.${n}@bench.example`,
  first_name: "Ada",
  last_name: "Lovelace",
  phone: "+1 555 0100",
  title: "Sales Engineer",
  source: "webinar"
})

/** A deal of the bench, before any move; each system keeps `{ id, stage, version, … }` per deal. */
export const dealFields = (n) => ({ name: `Pilot for Acme ${n}`, value: 5000 + n, currency: "EUR" })

/**
 * The fields of a created contact and deal as core makes them from the bodies above (a deal in the
 * pipeline of `stages`, at its first stage), made once: the systems that write the engine's
 * events themselves lay each command's own values over them, so that their events carry every
 * field the engine's do.
 */
export const engineTemplates = ({ stages, pipelineId }) => ({
  contact: createdFieldsFor("contact", contactFields("template", 0)),
  deal: createdFieldsFor(
    "deal",
    { ...dealFields(0), pipeline_id: pipelineId },
    pipelineInfo({ id: pipelineId, stages: stages.map((id) => ({ id, name: id })) })
  )
})

/** The stage after `stage` in a pipeline of `count` stages, so that every move is a real change. */
export const nextStage = (stage, count) => (stage + 1) % count

/** ULID-sized ids (prefix, 10 time characters, 16 more) for the systems that make their own. */
let counter = 0
export const newId = (prefix) =>
  `${prefix}_${Date.now().toString(32).padStart(10, "0")}${(counter++).toString(32).padStart(8, "0")}${Math.random().toString(32).slice(2, 10).padEnd(8, "0")}`

export const workspaceId = "bench"
