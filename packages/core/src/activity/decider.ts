import { Result } from "effect"
import type { Decider } from "../decider.js"
import type { DomainError, ErrorDetail } from "../errors.js"
import { ValidationError } from "../errors.js"
import type { Json, JsonObject } from "../json.js"
import type { ActivityCommand, CreateActivity, UnlinkActivityContact, UpdateActivity } from "./commands.js"
import { type LiveRecord, recordLifecycle, type RecordState } from "../record/lifecycle.js"
import { withoutContact } from "../record/links.js"
import type { ActivityEvent } from "./events.js"
import { ACTIVITY_LINKS, isLinked, linkedCollection, type LinkIds, linkIdsOf, patchedLinks } from "./links.js"

export type ActivityState = RecordState

export const activityLife = recordLifecycle<"activity", ActivityEvent>("activity", "activities")

type Decision = Result.Result<ReadonlyArray<ActivityEvent>, DomainError>

/** The types that happen at a time of their own: only they have a due_at. */
const DUE_TYPES: ReadonlyArray<Json> = ["task", "meeting"]

/** Checked on the activity as stored after the write: a link to a record in the trash still counts. */
const unlinked = (after: JsonObject): ReadonlyArray<ErrorDetail> =>
  isLinked(after)
    ? []
    : [
        {
          path: "contact_ids",
          message: "is empty, and so are deal_ids and company_ids: an activity names at least one contact, deal or company"
        }
      ]

/** Paths point at the offending element so the client can find it in what it sent. */
const unknownLinks = (given: JsonObject, unknown: LinkIds): ReadonlyArray<ErrorDetail> =>
  ACTIVITY_LINKS.flatMap((link) => {
    const ids = linkIdsOf(given, link)
    return unknown[link].map((id) => {
      const i = ids.indexOf(id)
      return { path: i >= 0 ? `${link}[${i}]` : link, message: `${linkedCollection[link]} ${id} does not exist` }
    })
  })

/** A due_at only on tasks and meetings, also when a patch changes the type of one that has it. */
const misplacedDueAt = (after: JsonObject, given: JsonObject): ReadonlyArray<ErrorDetail> => {
  if (after["due_at"] === null || after["due_at"] === undefined || DUE_TYPES.includes(after["type"] ?? null)) return []
  const sent = given["due_at"]
  return [
    {
      path: "due_at",
      message:
        sent !== undefined && sent !== null
          ? "is only for tasks and meetings"
          : `is only for tasks and meetings: clear it (null) to make this activity a ${String(after["type"])}`
    }
  ]
}

/** done_at in its place among the fields, right after due_at as the field table has it. */
const withDoneAt = (fields: JsonObject, doneAt: string | null): JsonObject => {
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value
    if (key === "due_at") out["done_at"] = doneAt
  }
  if (!Object.hasOwn(out, "done_at")) out["done_at"] = doneAt
  return out
}

const refusedFor = (details: ReadonlyArray<ErrorDetail>): Decision | null =>
  details.length > 0 ? Result.fail(ValidationError.of(details)) : null

const create = (command: CreateActivity, state: ActivityState): Decision => {
  const { at, id } = command
  const fields = withDoneAt(command.fields, command.done === true ? at : null)
  return (
    refusedFor([...unlinked(fields), ...unknownLinks(fields, command.unknownIds), ...misplacedDueAt(fields, fields)]) ??
    activityLife.create(state, id, fields, at)
  )
}

const update = (command: UpdateActivity, state: LiveRecord): Decision => {
  const given = command.fields
  const patch: Record<string, Json> = { ...given }
  for (const link of ACTIVITY_LINKS) {
    if (given[link] === undefined) continue
    patch[link] = [...patchedLinks(linkIdsOf(given, link), linkIdsOf(state.fields, link), new Set(command.trashedIds[link]))]
  }
  // Done again keeps the first done_at: marking a done activity done changes nothing.
  const doneAt = state.fields["done_at"] ?? null
  if (command.done === true && doneAt === null) patch["done_at"] = command.at
  if (command.done === false) patch["done_at"] = null
  const after = { ...state.fields, ...patch }
  const refused = refusedFor([...unlinked(after), ...unknownLinks(given, command.unknownIds), ...misplacedDueAt(after, given)])
  if (refused !== null) return refused
  return Result.succeed(activityLife.changes(state.fields, patch, command.at))
}

/**
 * An erased contact taken out of the activity, live or in the trash. An activity that named that
 * person alone (no other contact, deal or company, in the trash or not) would be about no one and
 * is all about them: it is purged at once with them instead (`activity.purged`), so no activity is
 * ever linked to nothing.
 */
const unlinkContact = (command: UnlinkActivityContact, state: ActivityState): Decision => {
  const unlinked = activityLife.unlinkContact(state, command.id, command.contactId, command.at)
  if (state.status !== "live" && state.status !== "deleted") return unlinked
  if (Result.isFailure(unlinked) || unlinked.success.length === 0) return unlinked
  return isLinked(withoutContact(state.fields, command.contactId)) ? unlinked : activityLife.purge(state, command.id, command.at, true)
}

const decideLife = activityLife.decideWith<ActivityCommand>({ create, update })

/**
 * The activity decider. Besides the field checks of the input parser it refuses an activity
 * linked to nothing, links to records that are not live, and a due_at on a type that has none;
 * done and open again are a change of done_at, set from the command's time.
 */
export const activityDecider: Decider<ActivityCommand, ActivityEvent, ActivityState> = {
  initialState: { status: "absent" },
  evolve: activityLife.evolve,
  decide: (command, state) => (command.type === "UnlinkActivityContact" ? unlinkContact(command, state) : decideLife(command, state))
}
