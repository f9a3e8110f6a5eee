// The fields of the records the seeds (and the peers that write the engine's events themselves)
// write, taken from core instead of listed here. A seed gives SQL for the fields it varies; every
// other field of a created contact or deal gets the value core's create parser and decider give a
// body that leaves it out, so a standard field core adds (as deals gained company_id) reaches the
// seeded events as the engine would write it. A seed that names a field core no longer has, or
// leaves out one core needs from the body, stops before any seeding.
import {
  contactDecider,
  contactFields,
  contactView,
  dealDecider,
  dealFields,
  parseContactCreate,
  parseDealCreate,
  projectContact,
  writableOf
} from "@dealstream/core"
import { isDeepStrictEqual } from "node:util"

const SAMPLE_AT = "2026-01-01T00:00:00.000Z"
const SAMPLE_PIPELINE = { id: "pipe_sample", stages: [{ id: "stage_sample", name: "Sample", position: 0 }] }

/** The value of a Result from core, or an Error saying what `what` refused and why. */
export const settled = (result, what) => {
  if (result._tag === "Success") return result.success
  const refusal = result.failure
  throw new Error(`${what}: ${refusal?.message ?? refusal}${refusal?.details ? ` ${JSON.stringify(refusal.details)}` : ""}`)
}

/** A pipeline as the API or the engine shows it, as core's deal decider takes it (stage rules included). */
export const pipelineInfo = (pipeline) => ({ id: pipeline.id, stages: pipeline.stages.map((stage, position) => ({ position, ...stage })) })

/** How core creates each kind: its field table, the create body's parser, and the decider's command. */
const KINDS = {
  contact: {
    table: contactFields,
    parse: parseContactCreate,
    decide: ({ id, at, fields }) => contactDecider.decide({ type: "CreateContact", id, at, fields }, contactDecider.initialState)
  },
  deal: {
    table: dealFields,
    parse: parseDealCreate,
    decide: ({ id, at, fields, pipeline }) =>
      dealDecider.decide({ type: "CreateDeal", id, at, fields, pipeline, unknownContactIds: [] }, dealDecider.initialState)
  }
}

/** The `<kind>.created` event core records for a create request's `body`. */
export const engineCreated = (kind, { id, at, body, pipeline }) => {
  const { parse, decide } = KINDS[kind]
  const fields = settled(parse(body, []), `core's ${kind} create parser refuses ${JSON.stringify(body)}`)
  const events = settled(decide({ id, at, fields, pipeline }), `core's ${kind} decider refuses ${JSON.stringify(fields)}`)
  if (events.length !== 1 || events[0].type !== `${kind}.created`) {
    throw new Error(`core's ${kind} decider answers a create with ${events.map((e) => e.type).join(", ") || "no event"}`)
  }
  return events[0]
}

/**
 * The fields core's decider gives a created `kind` for `body`, for the peers that write the
 * engine's events themselves (the raw ceiling, Emmett): each command lays its own values over them.
 */
export const createdFieldsFor = (kind, body, pipeline = SAMPLE_PIPELINE) =>
  engineCreated(kind, { id: `${kind}_sample`, at: SAMPLE_AT, body, pipeline }).data.fields

/** A create body of the required fields only, each with its documented example (or an id of its prefix). */
const sampleBody = (kind) =>
  Object.fromEntries(
    writableOf(KINDS[kind].table)
      .filter((field) => field.required)
      .map((field) => {
        const value = field.examples[0] ?? (field.idPrefix === null ? undefined : `${field.idPrefix}_sample`)
        if (value === undefined)
          throw new Error(`core's ${kind} field ${field.name} is required and has no example to sample a create with`)
        return [field.name, value]
      })
  )

const jsonLiteral = (value) => `'${JSON.stringify(value).replaceAll("'", "''")}'::jsonb`

/**
 * One SQL expression giving a created `kind`'s event fields (jsonb): `given` (field → SQL
 * expression, the values the seed varies) over the rest of the fields of a sample create, which
 * keep the value core gives a body that leaves them out. Throws when the seed gives a field a body
 * may not set, leaves out a required one, or leaves out one whose value core derives from the body
 * (a deal's stage_id: the pipeline's first stage).
 */
export const createdFieldsSql = (kind, given) => {
  const { table } = KINDS[kind]
  const writable = new Map(writableOf(table).map((field) => [field.name, field]))
  const unknown = Object.keys(given).filter((key) => !writable.has(key))
  if (unknown.length > 0)
    throw new Error(`the ${kind} seed writes ${unknown.join(", ")}, not among the fields core's ${kind} table lets a body set`)
  const missing = [...writable.values()].filter((field) => field.required && !Object.hasOwn(given, field.name)).map((field) => field.name)
  if (missing.length > 0) throw new Error(`the ${kind} seed leaves out ${missing.join(", ")}, which core's ${kind} table requires`)
  const sample = engineCreated(kind, { id: `${kind}_sample`, at: SAMPLE_AT, body: sampleBody(kind), pipeline: SAMPLE_PIPELINE })
  const taken = Object.entries(sample.data.fields).filter(([key]) => !Object.hasOwn(given, key))
  // Read-only fields (a deal's closed_at) are the decider's alone: taken as it gives them the
  // sample; a seed whose values would change them is caught by replay.mjs.
  const derived = taken.filter(([key, value]) => writable.has(key) && !isDeepStrictEqual(value, writable.get(key).absent))
  if (derived.length > 0) {
    throw new Error(
      `the ${kind} seed leaves out ${derived.map(([key]) => key).join(", ")}, which core's decider sets from the body ` +
        `(sample: ${JSON.stringify(Object.fromEntries(derived))}); the seed must give them`
    )
  }
  const varied = Object.entries(given)
    .map(([key, sql]) => `'${key}', ${sql}`)
    .join(",\n      ")
  return `(${jsonLiteral(Object.fromEntries(taken))} || jsonb_build_object(\n      ${varied}))`
}

/**
 * The keys the API's view of a new contact adds to its document (`deal_ids`, derived at read time),
 * with their values for a contact nothing links: one jsonb literal.
 */
export const contactViewAddsSql = () => {
  const created = engineCreated("contact", { id: "con_sample", at: SAMPLE_AT, body: sampleBody("contact") })
  const document = projectContact(null, created).data
  const view = contactView(created.data.id, document, [], new Set())
  return jsonLiteral(Object.fromEntries(Object.entries(view).filter(([key]) => !Object.hasOwn(document, key))))
}
