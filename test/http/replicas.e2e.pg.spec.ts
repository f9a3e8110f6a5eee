import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PgCluster, startPgCluster, waitFor } from "../support/pgCluster.js"
import { type Answer, errorOf, type Host, KEY_A, KEY_B, startHost } from "./client.js"

// Two real hosts reading from a streaming standby of PostgreSQL 15 (pgCluster.ts) and writing to
// its primary (issue 30, items 2 and 3; API.md, "Read positions and replicas"). With the standby's
// replay paused, every write's own follow-up read sees it, through the host that wrote it (the
// key's last write) and through the other (Dealstream-Read-After), while a read that needs nothing
// is served by the standby, stale, which shows the standby does serve. With replay resumed, the
// writer's reads move to the standby: counted by the hosts (/readyz) and by the standby itself
// (pg_stat_user_tables of the contacts' table). A standby that goes away is skipped.

let cluster: PgCluster
let database: string
let hosts: ReadonlyArray<Host>
const cleanup: Array<() => Promise<unknown>> = []

beforeAll(async () => {
  cluster = await startPgCluster()
  cleanup.push(() => cluster.stop())
  database = await cluster.createDatabase(cluster.primary)
  const storage = {
    postgres: cluster.primary.urlFor(database),
    readUrls: [cluster.standby.urlFor(database)],
    // Far above what the test takes with replay paused: the standby stays fit, only behind.
    readMaxLagMillis: 120_000
  }
  const apiKeys = `ws_a:${KEY_A},ws_a:${READER},ws_b:${KEY_B}`
  hosts = await Promise.all([startHost({ storage, apiKeys }), startHost({ storage, apiKeys })])
  for (const host of hosts) cleanup.push(() => host.close())
  await cluster.caughtUp(cluster.standby, cluster.primary)
  await waitFor("the standby fit on both hosts", async () => {
    const ready = await Promise.all(hosts.map((host) => host.call("GET", "/readyz", { key: null })))
    return ready.every((answer) => answer.body?.replicas?.[0]?.fit === true) ? true : undefined
  })
}, 120_000)

afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch((error) => console.error(error))
}, 60_000)

const POSITION = /^[0-9A-F]{16}$/
/** A second key of workspace A, which writes nothing. */
const READER = "key_alpha_reader_0123456789"

const replicaOf = async (host: Host) => {
  const ready = await host.call("GET", "/readyz", { key: null })
  expect(ready.status, ready.text).toBe(200)
  return ready.body.replicas[0] as {
    server: string
    fit: boolean
    lag_ms: number | null
    replayed: string | null
    served: number
    reason: string | null
  }
}

/** Index and sequential scans of the contacts' table the standby ran, as it counts them itself. */
const standbyScans = async () => {
  const [row] = await cluster.query<{ n: string | null }>(
    cluster.standby,
    "SELECT (coalesce(idx_scan, 0) + coalesce(seq_scan, 0))::text AS n FROM pg_stat_user_tables WHERE relname = 'ds_contacts'",
    [],
    database
  )
  return Number(row?.n ?? 0)
}

const positionOf = (answer: Answer) => {
  const position = answer.headers.get("dealstream-position")
  expect(position, `${answer.status} ${answer.text}`).toMatch(POSITION)
  return position!
}

describe("reads from a streaming replica", () => {
  it("see the writer's own writes while the replica's replay is paused, through either host", async () => {
    const [writer, other] = hosts as [Host, Host]
    await cluster.pauseReplay(cluster.standby)
    try {
      const created = await writer.call("POST", "/v1/contacts", { body: { email: "paused@example.com", first_name: "Ada" } })
      expect(created.status, created.text).toBe(201)
      const id: string = created.body.id
      const createdAt = positionOf(created)

      // The key's own reads through the host it wrote through: the get, the list, the search, the history.
      const got = await writer.call("GET", `/v1/contacts/${id}`)
      expect(got.status, got.text).toBe(200)
      const updated = await writer.call("PATCH", `/v1/contacts/${id}`, { body: { first_name: "Grace" } })
      expect(updated.status, updated.text).toBe(200)
      const updatedAt = positionOf(updated)
      expect(updatedAt > createdAt).toBe(true)
      expect((await writer.call("GET", `/v1/contacts/${id}`)).body.first_name).toBe("Grace")
      const listed = await writer.call("GET", "/v1/contacts?limit=100")
      expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(id)
      const found = await writer.call("GET", `/v1/contacts?search=${encodeURIComponent("paused@example.com")}`)
      expect(found.status, found.text).toBe(200)
      expect(found.body.data.map((c: { id: string }) => c.id)).toEqual([id])
      const history = await writer.call("GET", `/v1/contacts/${id}/history`)
      expect(history.status, history.text).toBe(200)
      expect(history.body.data.length).toBe(2)

      // Through the other host, with the position the write answered.
      const after = await other.call("GET", `/v1/contacts/${id}`, { headers: { "dealstream-read-after": updatedAt } })
      expect(after.status, after.text).toBe(200)
      expect(after.body.first_name).toBe("Grace")

      // A read that needs nothing (another key, which wrote nothing through this host) is served
      // by the standby, which has not replayed the write: that is what the positions are for.
      const servedBefore = (await replicaOf(other)).served
      const stale = await other.call("GET", `/v1/contacts/${id}`, { key: READER })
      expect(stale.status, stale.text).toBe(404)
      expect((await replicaOf(other)).served).toBeGreaterThan(servedBefore)
      // And the standby is behind: its replayed position is before the write's.
      const replica = await replicaOf(writer)
      expect(replica.fit).toBe(true)
      expect(replica.replayed! < createdAt).toBe(true)
    } finally {
      await cluster.resumeReplay(cluster.standby)
    }
  })

  it("move the writer's reads to the replica once it has replayed the write, counted on both sides", async () => {
    const [writer] = hosts as [Host, Host]
    const created = await writer.call("POST", "/v1/contacts", { body: { email: "resumed@example.com" } })
    expect(created.status, created.text).toBe(201)
    const at = positionOf(created)
    await waitFor("the standby past the write on the host", async () => {
      const replica = await replicaOf(writer)
      return replica.replayed !== null && replica.replayed >= at ? true : undefined
    })
    const served = (await replicaOf(writer)).served
    const scans = await standbyScans()
    for (let i = 0; i < 5; i++) {
      const got = await writer.call("GET", `/v1/contacts/${created.body.id}`)
      expect(got.status, got.text).toBe(200)
    }
    expect((await replicaOf(writer)).served).toBeGreaterThanOrEqual(served + 5)
    // A backend of the standby hands its counts on at the end of a transaction at most once a
    // second (an idle one only after 10 s): so the writer keeps reading until the standby says so.
    await waitFor("the standby counting the reads itself", async () => {
      expect((await writer.call("GET", `/v1/contacts/${created.body.id}`)).status).toBe(200)
      return (await standbyScans()) >= scans + 5 ? true : undefined
    })
  })

  it("answer 400 to a malformed Dealstream-Read-After, and an idempotent replay carries a position", async () => {
    const [writer] = hosts as [Host, Host]
    const refused = await writer.call("GET", "/v1/contacts", { headers: { "dealstream-read-after": "0/3000148" } })
    expect(refused.status, refused.text).toBe(400)
    expect(errorOf(refused).code).toBe("validation_error")
    expect(errorOf(refused).details[0]!.path).toBe("Dealstream-Read-After")

    const request = { body: { email: "replayed@example.com" }, headers: { "idempotency-key": "replica-replay-1" } }
    const first = await writer.call("POST", "/v1/contacts", request)
    const again = await writer.call("POST", "/v1/contacts", request)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(positionOf(again) >= positionOf(first)).toBe(true)
  })

  it("skip a replica that cannot be reached: the primary serves, and /readyz says why", async () => {
    const [writer, other] = hosts as [Host, Host]
    const created = await writer.call("POST", "/v1/contacts", { body: { email: "gone@example.com" } })
    await cluster.kill(cluster.standby, "SIGKILL")
    const replica = await waitFor("the standby set aside", async () => {
      const seen = await replicaOf(other)
      return seen.fit ? undefined : seen
    })
    expect(replica.reason).not.toBeNull()
    for (const host of [writer, other]) {
      const got = await host.call("GET", `/v1/contacts/${created.body.id}`, { key: READER })
      expect(got.status, got.text).toBe(200)
    }
  })
})
