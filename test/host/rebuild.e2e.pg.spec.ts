import * as Reactivity from "effect/reactivity/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Exit, Redacted, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { documentTables } from "../../packages/storage-pg/src/tables.js"
import { lines, run } from "../http/cli.js"
import { type Host, KEY_B, startHost } from "../http/client.js"
import { onCitus, testDatabase } from "../support/pg.js"

let url: string
const database = Effect.runSync(Scope.make())
beforeAll(async () => {
  url = await Effect.runPromise(Scope.provide(testDatabase, database))
})
afterAll(() => Effect.runPromise(Scope.close(database, Exit.void)))

const sql = <A extends object>(statement: string) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), (client) =>
        client.unsafe<A>(statement)
      )
    ).pipe(Effect.provide(Reactivity.layer))
  )

const inOneTransaction = (statements: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(PgClient.make({ url: Redacted.make(url), transformJson: false, maxConnections: 1 }), (client) =>
        client.withTransaction(Effect.forEach(statements, (statement) => client.unsafe(statement), { discard: true }))
      )
    ).pipe(Effect.provide(Reactivity.layer))
  )

const onHost = async <A>(body: (host: Host) => Promise<A>): Promise<A> => {
  const host = await startHost({ storage: { postgres: url } })
  try {
    return await body(host)
  } finally {
    await host.close()
  }
}

/** Records of every kind and history: custom fields, updates, stage moves, deletes, restores, two workspaces. */
const write = async (host: Host) => {
  const ok = async (method: string, path: string, body?: unknown, key?: string) => {
    const answer = await host.call(method, path, { ...(body === undefined ? {} : { body }), ...(key === undefined ? {} : { key }) })
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
    return answer.body
  }
  await ok("POST", "/v1/custom-fields", { object: "contact", key: "tier", label: "Tier", type: "enum", options: ["gold", "silver"] })
  await ok("POST", "/v1/custom-fields", { object: "deal", key: "region", label: "Region", type: "text" })
  const sales = (await ok("GET", "/v1/pipelines")).data[0]
  const contacts: Array<string> = []
  for (let i = 0; i < 30; i++) {
    const contact = await ok("POST", "/v1/contacts", {
      email: `person${i}@example.com`,
      first_name: `Person ${i}`,
      last_name: i % 3 === 0 ? "Lovelace" : null,
      tier: i % 2 === 0 ? "gold" : "silver"
    })
    contacts.push(contact.id)
  }
  await ok("PATCH", `/v1/contacts/${contacts[0]}`, { title: "CEO", tier: null })
  await ok("DELETE", `/v1/contacts/${contacts[1]}`)
  await ok("DELETE", `/v1/contacts/${contacts[2]}`)
  await ok("POST", `/v1/contacts/${contacts[2]}/restore`)
  for (let i = 0; i < 10; i++) {
    const deal = await ok("POST", "/v1/deals", {
      name: `Deal ${i}`,
      pipeline_id: sales.id,
      contact_ids: contacts.slice(i + 3, i + 5),
      value: 1000 * (i + 1),
      currency: "EUR",
      region: i % 2 === 0 ? "north" : "south"
    })
    await ok("PUT", `/v1/deals/${deal.id}/stage`, { stage_id: sales.stages[1 + (i % 4)].id, reason: `step ${i}` })
    if (i % 3 === 0) await ok("PATCH", `/v1/deals/${deal.id}`, { stage_id: sales.stages[5].id, status: "lost", value: 1 })
    if (i === 9) await ok("DELETE", `/v1/deals/${deal.id}`)
  }
  await ok("POST", "/v1/pipelines", { name: "Partners", stages: [{ name: "Intro" }, { name: "Signed" }] })
  await ok("POST", "/v1/contacts", { email: "other@example.com" }, KEY_B)
  return { contacts, deals: (await ok("GET", "/v1/deals?limit=100")).data.map((d: { id: string }) => d.id) as Array<string> }
}

/** Every answer a client could see, headers that depend on the record (ETag) included. */
const snapshot = async (host: Host, ids: { contacts: Array<string>; deals: Array<string> }) => {
  const paths = [
    "/v1/contacts?limit=100",
    "/v1/contacts?limit=100&sort=-email",
    "/v1/contacts?limit=7&sort=last_name",
    "/v1/contacts?search=lovelace",
    `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ tier: "gold" }))}&sort=-tier`,
    "/v1/deals?limit=100&sort=-value",
    "/v1/deals?status=lost",
    `/v1/deals?filter=${encodeURIComponent(JSON.stringify({ region: { $starts_with: "no" } }))}`,
    "/v1/pipelines",
    "/v1/trash?type=contact",
    "/v1/trash?type=deal",
    "/v1/custom-fields",
    ...ids.contacts.map((id) => `/v1/contacts/${id}?expand=deals,activities`),
    ...ids.deals.flatMap((id) => [`/v1/deals/${id}`, `/v1/deals/${id}/timeline`])
  ]
  const answers: Record<string, unknown> = {}
  for (const path of paths) {
    for (const key of [undefined, KEY_B]) {
      const answer = await host.call("GET", path, key === undefined ? {} : { key })
      // Request ids differ by nature; everything else must not.
      const body = answer.body?.error === undefined ? answer.body : { error: { ...answer.body.error, request_id: "…" } }
      answers[`${key ?? "A"} ${path}`] = { status: answer.status, etag: answer.headers.get("etag"), body }
    }
  }
  return answers
}

// The deals' figure documents (their standing and stage changes, 0e84c58) are projected from their events too.
const projectedTables = [
  documentTables.contact,
  documentTables.deal,
  documentTables.timeline_entry,
  documentTables.pipeline,
  documentTables.deal_standing,
  documentTables.stage_change
]

describe("dealstream rebuild", () => {
  it("rebuilds every document table from the events, and the API serves identical answers", async () => {
    const { before, ids } = await onHost(async (host) => {
      const ids = await write(host)
      return { before: await snapshot(host, ids), ids }
    })
    // Workspace A's answers are records (the deleted contact's 404 aside): the comparison below is about data.
    const notFound = Object.entries(before).filter(([key, answer]) => key.startsWith("A ") && (answer as { status: number }).status !== 200)
    expect(notFound.map(([key]) => key)).toEqual([`A /v1/contacts/${ids.contacts[1]}?expand=deals,activities`])
    const [{ events }] = (await sql<{ events: string }>("SELECT count(*)::text AS events FROM ds_events")) as [{ events: string }]
    const counts = await sql<{ n: string }>(projectedTables.map((t) => `SELECT count(*)::text AS n FROM ${t}`).join(" UNION ALL "))
    const documents = counts.reduce((sum, row) => sum + Number(row.n), 0)
    expect(documents).toBeGreaterThan(50)

    // Without documents the API has nothing to answer with: what it answers next comes from the rebuild.
    // On Citus a TRUNCATE's triggers reach every worker's shards and deadlock with it: the rows go
    // by DELETE there, one connection per worker (as the rebuild empties them, replaceDocuments.ts).
    await inOneTransaction(
      onCitus()
        ? ["SET LOCAL citus.multi_shard_modify_mode = 'sequential'", ...projectedTables.map((t) => `DELETE FROM ${t}`)]
        : [`TRUNCATE ${projectedTables.join(", ")}`]
    )
    await onHost(async (host) => {
      expect((await host.call("GET", "/v1/contacts")).body.data).toEqual([])
      expect((await host.call("GET", `/v1/deals/${ids.deals[0]}`)).status).toBe(404)
    })

    const rebuilt = run(["rebuild", "--storage", "postgres"], { DATABASE_URL: url })
    expect(await rebuilt.exit, rebuilt.stderr()).toBe(0)
    const streams = await sql<{ n: string }>("SELECT count(DISTINCT stream_id)::text AS n FROM ds_events")
    expect(lines(rebuilt.stdout())).toEqual([
      expect.stringMatching(
        new RegExp(`^rebuilt ${documents} documents from ${events} events in ${streams[0]!.n} streams \\(\\d+\\.\\d s\\)$`)
      )
    ])
    // Not a terminal: a line per tenth at most, ending at 100%.
    const progress = lines(rebuilt.stderr())
    expect(progress[0]).toMatch(/^rebuilding documents from the events in postgres at /)
    expect(progress.at(-1)).toBe(`rebuilding [####################] 100% ${events}/${events} events`)
    expect(progress.length).toBeLessThanOrEqual(12) // the storage line, the first step and one per tenth
    expect(rebuilt.stderr()).not.toContain("\r")

    const after = await onHost((host) => snapshot(host, ids))
    expect(Object.keys(after)).toEqual(Object.keys(before))
    for (const key of Object.keys(before)) expect(after[key], key).toEqual(before[key])
  }, 120_000)

  it("a database it cannot reach is one line and a non-zero exit", async () => {
    const target = new URL(url)
    target.pathname = "/ds_no_such_database"
    const failed = run(["rebuild", "--storage", "postgres", "--database-url", target.toString()])
    expect(await failed.exit).toBe(1)
    expect(lines(failed.stderr())).toEqual([
      `dealstream: cannot connect to PostgreSQL at ${target.hostname}:${target.port || "5432"}/ds_no_such_database: database "ds_no_such_database" does not exist`
    ])
  })
})
