import { appendFileSync, existsSync, readFileSync } from "node:fs"
import type { JsonObject, PromiseConsumer, PromiseEngine } from "@dealstream/core"

/** One line of the file: a deal won, by the event that won it. */
export interface WonLine {
  readonly event_id: string
  readonly deal_id: string
  readonly owner_id: string | null
  readonly value: number | null
  readonly currency: string | null
  readonly closed_at: string | null
}

/**
 * Whether this event is the one that made its deal won: a move into a won stage (PATCH `status:
 * "won"` is one too, where the pipeline has a won stage), or, in a pipeline without one, an update
 * that changed `status` to won.
 */
export const wonBy = (event: JsonObject): JsonObject | null => {
  const data = event["data"] as JsonObject
  const deal = data["deal"] as JsonObject | undefined
  if (deal?.["status"] !== "won") return null
  if (event["type"] === "deal.stage_changed") {
    const entry = data["timeline_entry"] as JsonObject | null
    return entry !== null && entry["to_status"] === "won" && entry["from_status"] !== "won" ? deal : null
  }
  const changed = data["changed_fields"]
  return event["type"] === "deal.updated" && Array.isArray(changed) && changed.includes("status") ? deal : null
}

/** The event ids already in the file: what a handler delivered again must not write twice. */
export const linesOf = (file: string): ReadonlyArray<WonLine> =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as WonLine)
    : []

/**
 * A consumer that appends a line per won deal to `file`. It runs after the commits, in commit order,
 * and is delivered each event at least once (again after a crash before its checkpoint, or after a
 * reset): the file is its own record of what it wrote, so an event already in it is skipped.
 */
export const writeWonDeals = (
  crm: PromiseEngine,
  options: { readonly workspaceId: string; readonly file: string }
): Promise<PromiseConsumer> => {
  const written = new Set(linesOf(options.file).map((line) => line.event_id))
  return crm.consume({
    name: "won-deals-file",
    workspaceId: options.workspaceId,
    types: ["deal.stage_changed", "deal.updated"],
    handler: async (event) => {
      const id = String(event["id"])
      const deal = wonBy(event)
      if (deal === null || written.has(id)) return
      const line: WonLine = {
        event_id: id,
        deal_id: String(deal["id"]),
        owner_id: (deal["owner_id"] as string | null) ?? null,
        value: (deal["value"] as number | null) ?? null,
        currency: (deal["currency"] as string | null) ?? null,
        closed_at: (deal["closed_at"] as string | null) ?? null
      }
      appendFileSync(options.file, `${JSON.stringify(line)}\n`)
      written.add(id)
    }
  })
}
