import { expect } from "vitest"
import type { Host } from "../http/client.js"
import type { Fixtures, IdType } from "./arbitraries.js"
import type { Database } from "./database.js"

/** Polls until no delivery is pending, so nothing the worker does lands between two snapshots. */
export const settle = async (database: Database, what = "pending deliveries and recoveries to settle", timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while ((await database.pendingWork()) > 0) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const created = async (host: Host, key: string, path: string, body: unknown) => {
  const answer = await host.call("POST", path, { key, body })
  expect(answer.status, `${path} ${answer.text}`).toBe(201)
  return answer.body as Record<string, any>
}

const ok = async (host: Host, key: string, method: string, path: string, body?: unknown) => {
  const answer = await host.call(method, path, body === undefined ? { key } : { key, body })
  expect(answer.status, `${method} ${path} ${answer.text}`).toBeLessThan(300)
  return answer.body as Record<string, any>
}

/**
 * Records of every kind in a workspace: custom fields, a pipeline, contacts (two in the trash),
 * deals with a stage history (one in the trash), a webhook to `receiverUrl` and its deliveries,
 * and real cursors of every paginated list.
 */
export const seedWorkspace = async (host: Host, database: Database | null, key: string, receiverUrl: string, tag: string) => {
  const ids: Record<IdType, Array<string>> = {
    contact: [],
    deal: [],
    company: [],
    activity: [],
    pipeline: [],
    stage: [],
    webhook: [],
    delivery: [],
    event: []
  }
  const cursors: Array<string> = []
  const customFields = [
    { object: "contact", key: "industry", label: "Industry", type: "text" },
    { object: "contact", key: "score", label: "Score", type: "number" },
    { object: "contact", key: "vip", label: "VIP", type: "boolean" },
    { object: "deal", key: "tier", label: "Tier", type: "enum", options: ["gold", "silver"] },
    { object: "deal", key: "renewal", label: "Renewal", type: "date" },
    { object: "company", key: "region", label: "Region", type: "text" },
    { object: "activity", key: "outcome", label: "Outcome", type: "enum", options: ["won", "lost"] }
  ] as const
  for (const field of customFields) await created(host, key, "/v1/custom-fields", field)
  const webhook = await created(host, key, "/v1/webhooks", {
    url: `${receiverUrl}/${tag}`,
    events: ["*"],
    secret: `secret_${tag}_0123456789`
  })
  ids.webhook.push(webhook.id)

  const pipelines = (await ok(host, key, "GET", "/v1/pipelines")).data as Array<Record<string, any>>
  const mine = await created(host, key, "/v1/pipelines", {
    name: `Pipeline ${tag}`,
    stages: [{ name: "One" }, { name: "Two" }, { name: "Three" }]
  })
  for (const pipeline of [...pipelines, mine]) {
    ids.pipeline.push(pipeline.id)
    ids.stage.push(...pipeline.stages.map((stage: { id: string }) => stage.id))
  }

  for (let i = 0; i < 3; i++) {
    const company = await created(host, key, "/v1/companies", {
      name: `${tag} company ${i}`,
      domain: `${tag}-${i}.example.com`,
      size: i * 10,
      region: "emea"
    })
    ids.company.push(company.id)
  }
  for (let i = 0; i < 5; i++) {
    const contact = await created(host, key, "/v1/contacts", {
      email: `${tag}.person${i}@example.com`,
      first_name: `First${i}`,
      source: i % 2 === 0 ? "webinar" : "referral",
      industry: "saas",
      score: i
    })
    ids.contact.push(contact.id)
  }
  for (let i = 0; i < 4; i++) {
    const deal = await created(host, key, "/v1/deals", {
      name: `${tag} deal ${i}`,
      pipeline_id: mine.id,
      value: 1000 * (i + 1),
      currency: "EUR",
      expected_close_date: "2026-12-31",
      contact_ids: ids.contact.slice(0, 2),
      tier: "gold"
    })
    ids.deal.push(deal.id)
  }
  for (let i = 0; i < 3; i++) {
    const activity = await created(host, key, "/v1/activities", {
      type: i === 0 ? "task" : "note",
      subject: `${tag} activity ${i}`,
      ...(i === 0 ? { due_at: "2027-01-15T09:00:00Z" } : {}),
      contact_ids: ids.contact.slice(0, 1),
      deal_ids: ids.deal.slice(0, 1),
      company_ids: ids.company.slice(0, 1),
      outcome: "won"
    })
    ids.activity.push(activity.id)
  }
  for (const stage of mine.stages.slice(1))
    await ok(host, key, "PUT", `/v1/deals/${ids.deal[0]}/stage`, { stage_id: stage.id, reason: "seed" })
  await ok(host, key, "DELETE", `/v1/contacts/${ids.contact[3]}`)
  await ok(host, key, "DELETE", `/v1/contacts/${ids.contact[4]}`)
  await ok(host, key, "DELETE", `/v1/deals/${ids.deal[3]}`)
  await ok(host, key, "DELETE", `/v1/companies/${ids.company[2]}`)
  await ok(host, key, "DELETE", `/v1/activities/${ids.activity[2]}`)
  if (database !== null) await settle(database)
  const deliveries = (await ok(host, key, "GET", `/v1/webhooks/${webhook.id}/deliveries?limit=100`)).data as Array<{ id: string }>
  ids.delivery.push(...deliveries.slice(0, 5).map((delivery) => delivery.id))
  ids.event.push(...(await ok(host, key, "GET", "/v1/events?limit=5")).data.map((event: { id: string }) => event.id))

  for (const path of [
    "/v1/contacts?limit=1",
    "/v1/contacts?limit=1&sort=-email",
    "/v1/contacts?limit=1&sort=score",
    `/v1/contacts?limit=1&filter=${encodeURIComponent('{"source":"webinar"}')}`,
    "/v1/contacts?limit=1&search=first",
    "/v1/deals?limit=1&sort=value",
    "/v1/deals?limit=1&sort=-expected_close_date",
    `/v1/deals?limit=1&pipeline_id=${mine.id}`,
    "/v1/trash?type=contact&limit=1",
    "/v1/companies?limit=1&sort=-name",
    "/v1/activities?limit=1&sort=due_at",
    `/v1/deals/${ids.deal[0]}/timeline?limit=1`,
    `/v1/webhooks/${webhook.id}/deliveries?limit=1`,
    "/v1/events?limit=1"
  ]) {
    const page = await ok(host, key, "GET", path)
    expect(page.next_cursor, path).toEqual(expect.any(String))
    cursors.push(page.next_cursor)
  }
  return { ids, cursors, customFields: customFields.map(({ key, object }) => ({ key, object })) }
}

/** Two seeded workspaces as the fuzz sees them: the caller's (`own`) and another (`other`). */
export const seedFixtures = async (
  host: Host,
  database: Database | null,
  keys: { readonly own: string; readonly other: string },
  receiverUrl: string
): Promise<Fixtures> => {
  const own = await seedWorkspace(host, database, keys.own, receiverUrl, "own")
  const other = await seedWorkspace(host, database, keys.other, receiverUrl, "other")
  return {
    own: own.ids,
    other: other.ids,
    customFields: own.customFields,
    cursors: [...own.cursors, ...other.cursors],
    receiverUrl,
    ownKey: keys.own,
    otherKey: keys.other
  }
}
