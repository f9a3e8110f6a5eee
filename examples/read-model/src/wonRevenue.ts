import { type InlineEvent, inlineProjection, inlineStore, type JsonObject } from "@dealstream/core"

/** A won deal as the read model keeps it: its value counts for its owner in the month it closed. */
export interface WonDeal {
  readonly workspaceId: string
  readonly dealId: string
  readonly ownerId: string | null
  /** `YYYY-MM` of `closed_at`, in UTC. */
  readonly month: string
  readonly currency: string
  readonly value: number
}

/** What one deal event leaves of its deal in the read model: its row when the deal is won, else none. */
interface Change {
  readonly workspaceId: string
  readonly dealId: string
  readonly won: WonDeal | null
}

/** The deal as the API shows it, when it is won and has a value and a close time. */
export const wonDealOf = (workspaceId: string, deal: JsonObject): WonDeal | null => {
  const { closed_at, currency, id, owner_id, status, value } = deal
  if (status !== "won" || typeof value !== "number" || typeof closed_at !== "string" || typeof currency !== "string") return null
  return {
    workspaceId,
    dealId: String(id),
    ownerId: typeof owner_id === "string" ? owner_id : null,
    month: closed_at.slice(0, 7),
    currency,
    value
  }
}

/**
 * Each deal event carries the whole deal as the API shows it after the event (`data.deal`), or only
 * its id when it was deleted or purged: so the row is rewritten from the event alone, with no read,
 * and a deal that stops being won (reopened, lost, deleted) leaves the table. Idempotent per event.
 */
const changeOf = (event: InlineEvent): Change => {
  const deal = event.data["deal"] as JsonObject | undefined
  const dealId = String(deal?.["id"] ?? event.data["id"] ?? event.stream_id)
  return { workspaceId: event.workspace_id, dealId, won: deal === undefined ? null : wonDealOf(event.workspace_id, deal) }
}

/** The memory storage's copy of the table, by `workspace/deal`. */
export const wonDeals = inlineStore(new Map<string, WonDeal>())

/**
 * The table of won deals, kept in the commit of every deal event. On PostgreSQL it is
 * `won_deals` (wonDealsTable), on memory storage `wonDeals`; `revenueOf` sums either.
 */
export const wonRevenue = inlineProjection<Change, Map<string, WonDeal>>({
  name: "won_revenue",
  types: ["deal.*"],
  project: (events) => events.map(changeOf),
  postgres: ({ dealId, won, workspaceId }) =>
    won === null
      ? { sql: "DELETE FROM won_deals WHERE workspace_id = $1 AND deal_id = $2", params: [workspaceId, dealId] }
      : {
          sql: `INSERT INTO won_deals (workspace_id, deal_id, owner_id, month, currency, value) VALUES ($1, $2, $3, $4, $5, $6::numeric)
                ON CONFLICT (workspace_id, deal_id) DO UPDATE SET owner_id = excluded.owner_id, month = excluded.month,
                  currency = excluded.currency, value = excluded.value`,
          params: [workspaceId, dealId, won.ownerId, won.month, won.currency, won.value]
        },
  memory: {
    store: wonDeals,
    apply: (state, { dealId, won, workspaceId }) => {
      const next = new Map(state)
      if (won === null) next.delete(`${workspaceId}/${dealId}`)
      else next.set(`${workspaceId}/${dealId}`, won)
      return next
    }
  }
})

/** The PostgreSQL table the projection writes: made by the embedder, beside dealstream's own. */
export const wonDealsTable = `CREATE TABLE IF NOT EXISTS won_deals (
  workspace_id text NOT NULL,
  deal_id text NOT NULL,
  owner_id text,
  month text NOT NULL,
  currency text NOT NULL,
  value numeric NOT NULL,
  PRIMARY KEY (workspace_id, deal_id)
)`

/** Won revenue per owner, month and currency (`owner|month|currency` → sum), from the table's rows. */
export const revenueOf = (rows: Iterable<Pick<WonDeal, "ownerId" | "month" | "currency" | "value">>): Map<string, number> => {
  const totals = new Map<string, number>()
  for (const row of rows) {
    const key = `${row.ownerId ?? "-"}|${row.month}|${row.currency}`
    totals.set(key, (totals.get(key) ?? 0) + row.value)
  }
  return totals
}
