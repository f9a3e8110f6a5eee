import type { Json, JsonObject } from "../../json.js"
import { sameData } from "../sameData.js"

/** A deal's event as the log holds it (decoded or stored alike). */
export interface LoggedDealEvent {
  readonly type: string
  readonly data: { readonly [key: string]: Json }
}

/** One deal: its stream, its document (null when there is none), and the timeline entries stored for it. */
export interface DealTimeline {
  readonly dealId: string
  readonly events: ReadonlyArray<LoggedDealEvent>
  readonly deal: JsonObject | null
  readonly entries: ReadonlyArray<JsonObject>
}

const ENTRY_KEYS = ["id", "deal_id", "from_stage_id", "to_stage_id", "from_status", "to_status", "reason", "changed_at"] as const

/**
 * Every way a deal's timeline can disagree with its log, as sentences (none when all is well): one
 * entry per `deal.stage_changed`, holding what its event says and nothing else; entries chain from the
 * stage the deal was created in, never stay in place, never go back in time, have distinct ids, and
 * end in the stage the deal's document is in. A purged deal has neither document nor entries.
 */
export const timelineProblems = ({ deal, dealId, entries, events }: DealTimeline): Array<string> => {
  const problems: Array<string> = []
  const created = events[0]
  if (created === undefined) {
    if (deal !== null || entries.length > 0) problems.push(`${dealId}: a document or entries but no events`)
    return problems
  }
  if (created.type !== "deal.created") return [`${dealId}: the stream starts with ${created.type}`]
  const purged = events.some((event) => event.type === "deal.purged")
  if (purged) {
    if (deal !== null) problems.push(`${dealId}: purged, yet its document remains`)
    if (entries.length > 0) problems.push(`${dealId}: purged, yet ${entries.length} timeline entries remain`)
    return problems
  }
  if (deal === null) problems.push(`${dealId}: events but no document`)
  const byId = new Map(entries.map((entry) => [entry["id"] as string, entry]))
  if (byId.size !== entries.length) problems.push(`${dealId}: two timeline entries share an id`)
  const fields = created.data["fields"] as JsonObject
  let stage = fields["stage_id"]
  let at = ""
  const seen = new Set<string>()
  for (const event of events) {
    if (event.type !== "deal.stage_changed") continue
    const id = event.data["entry_id"] as string
    if (seen.has(id)) problems.push(`${dealId}: two moves record entry ${id}`)
    seen.add(id)
    const entry = byId.get(id)
    const expected: JsonObject = {
      id,
      deal_id: dealId,
      from_stage_id: event.data["from_stage_id"]!,
      to_stage_id: event.data["to_stage_id"]!,
      from_status: event.data["from_status"] ?? null,
      to_status: event.data["to_status"] ?? null,
      reason: event.data["reason"] ?? null,
      changed_at: event.data["at"]!
    }
    if (entry === undefined) {
      problems.push(`${dealId}: no timeline entry for the move ${id}`)
    } else if (
      Object.keys(entry).length !== ENTRY_KEYS.length ||
      ENTRY_KEYS.some((key) => !sameData(entry[key] ?? null, expected[key] ?? null))
    ) {
      problems.push(`${dealId}: entry ${JSON.stringify(entry)} is not its event ${JSON.stringify(expected)}`)
    }
    if (expected["from_stage_id"] !== stage)
      problems.push(`${dealId}: move ${id} starts at ${expected["from_stage_id"]}, the deal was at ${stage}`)
    if (expected["from_stage_id"] === expected["to_stage_id"]) problems.push(`${dealId}: move ${id} stays in ${expected["to_stage_id"]}`)
    if ((expected["changed_at"] as string) < at)
      problems.push(`${dealId}: move ${id} at ${expected["changed_at"]} is earlier than the one before (${at})`)
    stage = expected["to_stage_id"]
    at = expected["changed_at"] as string
  }
  for (const id of byId.keys()) if (!seen.has(id)) problems.push(`${dealId}: timeline entry ${id} has no stage_changed event`)
  if (deal !== null && deal["stage_id"] !== stage)
    problems.push(`${dealId}: the deal is in ${deal["stage_id"]}, its timeline ends in ${stage}`)
  return problems
}
