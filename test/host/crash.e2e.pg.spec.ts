import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { serve } from "../http/cli.js"
import { eventLog, liveFromLog, openSql, rebuildComparison, type Sql, timelineProblems } from "../support/consistency.js"
import { testDatabase } from "../support/pg.js"
import { type Received, type Receiver, startReceiver } from "../webhooks/receiver.js"

// The built CLI (`npx tsc -b` first) on a PostgreSQL database, SIGKILLed while a dozen clients
// write, then started again on the same database. A write answered 2xx must be there exactly once;
// a write whose answer was lost may or may not be there, but whole; a lost create or restore retried
// with its Idempotency-Key on the new host is applied once in all; the documents must be the
// projection of the log; every event committed before the kill must reach the webhook receiver.

const KEY = "key_crash_0123456789"
const WORKERS = 12
/** Requests answered before the kill: enough for every kind of write to have happened many times. */
const KILL_AFTER = 500

type Spawned = Awaited<ReturnType<typeof serve>>

const cleanup: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined)
}, 60_000)

const hostArgs = (databaseUrl: string) => [
  "--storage",
  "postgres",
  "--database-url",
  databaseUrl,
  "--api-keys",
  `ws_crash:${KEY}`,
  "--rate-limit",
  "100000",
  "--rate-burst",
  "100000",
  "--webhook-timeout",
  "2s"
]
// As the settings an operator would give: environment variables. The dead host's claims go out
// again only once their lease has run out: 5 s (past the 2 s timeout) rather than the default
// timeout + 30 s, which the test would otherwise spend waiting.
const hostEnv = {
  DEALSTREAM_ALLOW_INSECURE_WEBHOOKS: "1",
  DEALSTREAM_WEBHOOK_RETRY_SCHEDULE: "300ms,1s,1s,1s,1s,1s",
  DEALSTREAM_WEBHOOK_LEASE: "5s"
}

const startCli = async (databaseUrl: string): Promise<Spawned> => {
  const host = await serve(hostArgs(databaseUrl), hostEnv)
  cleanup.push(async () => {
    if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill("SIGKILL")
    await host.exit
  })
  return host
}

interface Answer {
  readonly status: number
  readonly body: any
  readonly replayed: boolean
  readonly location: string | null
}

const request = async (
  host: Spawned,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {}
): Promise<Answer> => {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return {
    status: response.status,
    body: text === "" ? null : JSON.parse(text),
    replayed: response.headers.get("idempotent-replayed") === "true",
    location: response.headers.get("location")
  }
}

// --- The writes and what became of them -----------------------------------------------------

type Kind =
  | "create contact"
  | "create deal"
  | "update contact"
  | "update deal"
  | "move deal"
  | "update and move deal"
  | "delete contact"
  | "delete deal"
  | "restore contact"
  | "restore deal"

interface Write {
  readonly kind: Kind
  /** A value only this write carries (email, deal name, title, value, reason), to find it in the log. */
  readonly token: string
  readonly target: string | null
  readonly method: string
  readonly path: string
  readonly body: unknown
  readonly idempotencyKey: string | null
  /** The status, or "lost": the host died before answering (the write may or may not have happened). */
  outcome: number | "lost" | null
  answer: any
}

const ok = (write: Write) => typeof write.outcome === "number" && write.outcome >= 200 && write.outcome < 300
const failed = (write: Write) => typeof write.outcome === "number" && write.outcome >= 300

/** A small seeded generator for the mix of writes (the seed is in the failure messages and the summary). */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe("a host SIGKILLed under concurrent writes", () => {
  it("keeps every answered write exactly once, nothing half applied, and delivers every committed event", async () => {
    const databaseScope = Effect.runSync(Scope.make())
    cleanup.push(() => Effect.runPromise(Scope.close(databaseScope, Exit.void)))
    const databaseUrl = await Effect.runPromise(Scope.provide(testDatabase, databaseScope))
    const sql: Sql = await openSql(databaseUrl)
    cleanup.push(() => sql.close())

    // The first attempt of every fifth delivery fails, so retries are scheduled when the host dies.
    const receiver: Receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const attempted = new Set<string>()
    receiver.script((r: Received) => {
      const delivery = String(r.headers["x-service-delivery"])
      const first = !attempted.has(delivery)
      attempted.add(delivery)
      return first && delivery.charCodeAt(delivery.length - 1) % 5 === 0 ? { status: 503 } : { status: 200 }
    })

    const first = await startCli(databaseUrl)
    expect((await request(first, "POST", "/v1/webhooks", { url: `${receiver.url}/hook`, events: ["*"] })).status).toBe(201)
    const pipeline = (await request(first, "GET", "/v1/pipelines")).body.data[0]
    const stages: Array<string> = pipeline.stages.map((s: { id: string }) => s.id)

    const seed = Date.now() % 1_000_000
    const next = random(seed)
    const pick = <A>(items: ReadonlyArray<A>): A | undefined => items[Math.floor(next() * items.length)]
    const writes: Array<Write> = []
    const contacts: Array<string> = []
    const deals: Array<string> = []
    let counter = 0
    let answered = 0
    let killed = false

    const plan = (): Write => {
      const n = ++counter
      const roll = next()
      const contact = pick(contacts)
      const deal = pick(deals)
      const write = (
        kind: Kind,
        token: string,
        target: string | null,
        method: string,
        path: string,
        body: unknown,
        idempotent = false
      ): Write => ({
        kind,
        token,
        target,
        method,
        path,
        body,
        idempotencyKey: idempotent ? `crash-${n}` : null,
        outcome: null,
        answer: null
      })
      if (roll < 0.2 || contact === undefined) {
        return write(
          "create contact",
          `c${n}@crash.example`,
          null,
          "POST",
          "/v1/contacts",
          { email: `c${n}@crash.example`, first_name: `C${n}` },
          true
        )
      }
      if (roll < 0.4 || deal === undefined) {
        const body = { name: `deal ${n}`, pipeline_id: pipeline.id, value: n, currency: "EUR", contact_ids: next() < 0.5 ? [contact] : [] }
        return write("create deal", `deal ${n}`, null, "POST", "/v1/deals", body, true)
      }
      if (roll < 0.52) return write("update contact", `title ${n}`, contact, "PATCH", `/v1/contacts/${contact}`, { title: `title ${n}` })
      if (roll < 0.62) return write("update deal", String(n), deal, "PATCH", `/v1/deals/${deal}`, { value: n })
      if (roll < 0.8)
        return write("move deal", `move ${n}`, deal, "PUT", `/v1/deals/${deal}/stage`, { stage_id: pick(stages), reason: `move ${n}` })
      if (roll < 0.86)
        return write("update and move deal", String(n), deal, "PATCH", `/v1/deals/${deal}`, { value: n, stage_id: pick(stages) })
      if (roll < 0.9) return write("delete contact", "", contact, "DELETE", `/v1/contacts/${contact}`, undefined)
      if (roll < 0.94) return write("delete deal", "", deal, "DELETE", `/v1/deals/${deal}`, undefined)
      if (roll < 0.97) return write("restore contact", "", contact, "POST", `/v1/contacts/${contact}/restore`, undefined, true)
      return write("restore deal", "", deal, "POST", `/v1/deals/${deal}/restore`, undefined, true)
    }

    const worker = async () => {
      while (!killed) {
        const write = plan()
        writes.push(write)
        try {
          const answer = await request(
            first,
            write.method,
            write.path,
            write.body,
            write.idempotencyKey === null ? {} : { "idempotency-key": write.idempotencyKey }
          )
          write.outcome = answer.status
          write.answer = answer.body
        } catch {
          write.outcome = "lost"
          return
        }
        if (ok(write) && write.kind === "create contact") contacts.push(write.answer.id)
        if (ok(write) && write.kind === "create deal") deals.push(write.answer.id)
        if (++answered === KILL_AFTER && !killed) {
          killed = true
          first.child.kill("SIGKILL")
        }
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, worker))
    expect(await first.exit).toBeNull()
    expect(first.child.signalCode).toBe("SIGKILL")

    // Nothing but a kill went wrong while the host lived: no 5xx, no 400 of a malformed request.
    const byOutcome = new Map<string, number>()
    for (const write of writes) byOutcome.set(`${write.kind} ${write.outcome}`, (byOutcome.get(`${write.kind} ${write.outcome}`) ?? 0) + 1)
    const unexpected = writes.filter((w) => typeof w.outcome === "number" && !ok(w) && !expectedRefusal(w))
    expect(
      unexpected.map((w) => `${w.kind} ${w.path} ${w.outcome} ${JSON.stringify(w.answer)}`),
      `seed ${seed}`
    ).toEqual([])
    const lost = writes.filter((w) => w.outcome === "lost")
    expect(lost.length, "requests in flight when the host died").toBeGreaterThan(0)

    const second = await startCli(databaseUrl)
    // The log as the dead host left it; the retries below add to it.
    const committed = await eventLog(sql)

    // Answered creates are there exactly once, and their key replays the same answer; a refused one
    // is not there; one whose answer was lost is there once or not at all, and its key was kept
    // exactly when it is there (the key is recorded in the create's own commit).
    const countOf = async (kind: Kind, token: string) => {
      const [row] =
        kind === "create contact"
          ? await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ds_contacts WHERE data ->> 'email' = $1`, [token])
          : await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ds_deals WHERE data ->> 'name' = $1`, [token])
      return row!.n
    }
    const idOf = async (kind: Kind, token: string) => {
      const [row] =
        kind === "create contact"
          ? await sql.query<{ id: string }>(`SELECT id FROM ds_contacts WHERE data ->> 'email' = $1`, [token])
          : await sql.query<{ id: string }>(`SELECT id FROM ds_deals WHERE data ->> 'name' = $1`, [token])
      return row!.id
    }
    const keyKept = async (write: Write) => {
      const [row] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ds_idempotency_keys WHERE id = $1`, [
        write.idempotencyKey
      ])
      return row!.n === 1
    }
    const retry = (write: Write) => request(second, write.method, write.path, write.body, { "idempotency-key": write.idempotencyKey! })
    const lostCreates: Array<{ write: Write; applied: boolean }> = []
    for (const write of writes.filter((w) => w.kind === "create contact" || w.kind === "create deal")) {
      const count = await countOf(write.kind, write.token)
      if (ok(write)) {
        expect(count, `${write.kind} ${write.token}`).toBe(1)
        const again = await retry(write)
        expect({ status: again.status, replayed: again.replayed, body: again.body }).toEqual({
          status: write.outcome,
          replayed: true,
          body: write.answer
        })
      } else if (failed(write)) {
        expect(count, `${write.kind} ${write.token} refused with ${write.outcome}`).toBe(0)
      } else {
        expect(count, `${write.kind} ${write.token} whose answer was lost`).toBeLessThanOrEqual(1)
        expect(
          await keyKept(write),
          `the Idempotency-Key of ${write.kind} ${write.token}, answer lost, ${count === 1 ? "applied" : "not applied"}`
        ).toBe(count === 1)
        lostCreates.push({ write, applied: count === 1 })
      }
    }

    // Restores (all made with a key): one restored event per restore whose key is kept, that is
    // per restore answered 2xx and per lost one the dead host applied; an answered one replays.
    const restores = writes.filter((w) => w.kind === "restore contact" || w.kind === "restore deal")
    const restoreKept = new Map<Write, boolean>()
    for (const write of restores) restoreKept.set(write, await keyKept(write))
    for (const write of restores.filter((w) => w.outcome !== "lost")) {
      expect(restoreKept.get(write), `the Idempotency-Key of ${write.kind} ${write.path} answered ${write.outcome}`).toBe(ok(write))
      if (ok(write)) {
        const again = await retry(write)
        expect({ status: again.status, replayed: again.replayed, body: again.body }).toEqual({
          status: write.outcome,
          replayed: true,
          body: write.answer
        })
      }
    }
    for (const target of new Set(restores.map((w) => w.target!))) {
      const mine = restores.filter((w) => w.target === target)
      const type = mine[0]!.kind === "restore contact" ? "contact.restored" : "deal.restored"
      const logged = committed.filter((e) => e.stream_id === target && e.type === type).length
      expect(logged, `${type} events of ${target}: one per restore whose key was kept`).toBe(mine.filter((w) => restoreKept.get(w)).length)
    }

    // Every create and restore whose answer was lost, retried on the new host with its key and body:
    // applied before the kill, it answers the record as it is now, replayed, and writes nothing;
    // not applied, it is a first attempt (a deal whose contact was deleted since is rightly a 400),
    // and a second retry replays that answer. Either way the create exists once in the end.
    for (const { applied, write } of lostCreates) {
      const label = `${write.kind} ${write.token}, answer lost, ${applied ? "applied" : "not applied"}, retried`
      const answer = await retry(write)
      if (applied) {
        const id = await idOf(write.kind, write.token)
        const record = await request(second, "GET", `${write.path}/${id}`)
        expect(record.status, label).toBe(200)
        expect({ status: answer.status, replayed: answer.replayed, location: answer.location, body: answer.body }, label).toEqual({
          status: 201,
          replayed: true,
          location: `${write.path}/${id}`,
          body: record.body
        })
        expect(await countOf(write.kind, write.token), label).toBe(1)
        continue
      }
      expect(answer.replayed, label).toBe(false)
      const contactIds = (write.body as { contact_ids?: ReadonlyArray<string> }).contact_ids ?? []
      if (answer.status === 400 && write.kind === "create deal" && contactIds.length > 0) {
        const [contact] = await sql.query<{ deleted: boolean }>(`SELECT deleted_at IS NOT NULL AS deleted FROM ds_contacts WHERE id = $1`, [
          contactIds[0]
        ])
        expect(contact?.deleted, `${label}: 400 ${JSON.stringify(answer.body)}`).toBe(true)
        expect(await countOf(write.kind, write.token), label).toBe(0)
        continue
      }
      expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBe(201)
      expect(await countOf(write.kind, write.token), label).toBe(1)
      const again = await retry(write)
      expect({ status: again.status, replayed: again.replayed, body: again.body }, label).toEqual({
        status: 201,
        replayed: true,
        body: answer.body
      })
    }
    for (const write of restores.filter((w) => w.outcome === "lost")) {
      const label = `${write.kind} ${write.path}, answer lost, ${restoreKept.get(write) ? "applied" : "not applied"}, retried`
      const answer = await retry(write)
      if (restoreKept.get(write)) {
        // The record as it is now: restored, or deleted again by a write answered before the kill.
        const record = await request(second, "GET", write.path.replace(/\/restore$/, ""))
        expect({ status: answer.status, replayed: answer.replayed, body: answer.body }, label).toEqual(
          record.status === 200
            ? { status: 200, replayed: true, body: record.body }
            : { status: record.status, replayed: false, body: answer.body }
        )
      } else {
        // A first attempt: restored now, or refused (the record is live, or its email taken since).
        expect(answer.replayed, label).toBe(false)
        expect([200, 404, 409], `${label}: ${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status)
      }
    }
    const events = await eventLog(sql)

    // Updates, moves, deletes and restores: one event per answered write, none for a refused one,
    // at most one for a lost one; a PATCH that moves too is both of its events or neither.
    const eventsOf = (stream: string | null) => events.filter((e) => e.stream_id === stream)
    for (const write of writes.filter((w) => !w.kind.startsWith("create"))) {
      const stream = eventsOf(write.target)
      const mine = (() => {
        switch (write.kind) {
          case "update contact":
            return stream.filter((e) => e.type === "contact.updated" && e.data["changed"]["title"] === write.token)
          case "update deal":
          case "update and move deal":
            return stream.filter((e) => e.type === "deal.updated" && e.data["changed"]["value"] === Number(write.token))
          case "move deal":
            return stream.filter((e) => e.type === "deal.stage_changed" && e.data["reason"] === write.token)
          default:
            return []
        }
      })()
      const label = `${write.kind} ${write.path} ${JSON.stringify(write.body)} → ${write.outcome}`
      if (write.kind === "move deal" && ok(write)) {
        const entry = write.answer.timeline_entry
        expect(
          mine.map((e) => e.data["entry_id"]),
          label
        ).toEqual(entry === null ? [] : [entry.id])
      } else if (write.kind.startsWith("update") || write.kind === "move deal") {
        expect(mine.length, label).toBe(ok(write) ? 1 : failed(write) ? 0 : Math.min(mine.length, 1))
      }
      if (write.kind === "update and move deal" && mine[0] !== undefined) {
        // Both events of the PATCH or neither: when it found the deal elsewhere, its move follows
        // its update in the same commit (next version, same command time).
        const updated = mine[0]
        const stageBefore = stream
          .filter((e) => e.stream_version < updated.stream_version)
          .reduce(
            (stage, e) =>
              e.type === "deal.created" ? e.data["fields"]["stage_id"] : e.type === "deal.stage_changed" ? e.data["to_stage_id"] : stage,
            ""
          )
        const wanted = (write.body as { stage_id: string }).stage_id
        const following = stream.find((e) => e.stream_version === updated.stream_version + 1)
        if (stageBefore !== wanted) {
          expect({ type: following?.type, to: following?.data["to_stage_id"], at: following?.data["at"] }, label).toEqual({
            type: "deal.stage_changed",
            to: wanted,
            at: updated.data["at"]
          })
        }
      }
    }
    // Deletes and restores have no token: per record, answered ones ≤ events ≤ answered + lost.
    for (const [kind, type] of [
      ["delete contact", "contact.deleted"],
      ["delete deal", "deal.deleted"],
      ["restore contact", "contact.restored"],
      ["restore deal", "deal.restored"]
    ] as const) {
      const targets = new Set(writes.filter((w) => w.kind === kind).map((w) => w.target!))
      for (const target of targets) {
        const mine = writes.filter((w) => w.kind === kind && w.target === target)
        const logged = eventsOf(target).filter((e) => e.type === type).length
        expect(logged, `${type} events of ${target}`).toBeGreaterThanOrEqual(mine.filter(ok).length)
        expect(logged, `${type} events of ${target}`).toBeLessThanOrEqual(mine.filter((w) => ok(w) || w.outcome === "lost").length)
      }
    }

    // Counts agree: live documents = created − deleted + restored, in the log and through the API.
    const [live] = await sql.query<{ contacts: number; deals: number }>(
      `SELECT (SELECT count(*)::int FROM ds_contacts WHERE deleted_at IS NULL) AS contacts,
              (SELECT count(*)::int FROM ds_deals WHERE deleted_at IS NULL) AS deals`
    )
    expect(live).toEqual({ contacts: liveFromLog(events, "contact"), deals: liveFromLog(events, "deal") })
    expect(await countThroughApi(second, "/v1/contacts")).toBe(live!.contacts)
    expect(await countThroughApi(second, "/v1/deals")).toBe(live!.deals)
    expect(await timelineProblems(sql, events)).toEqual([])
    // The API lists each live deal's timeline in the order of its moves in the log.
    const liveDeals = await sql.query<{ id: string }>(`SELECT id FROM ds_deals WHERE deleted_at IS NULL ORDER BY id`)
    for (const { id } of liveDeals) {
      const listed = await request(second, "GET", `/v1/deals/${id}/timeline?limit=100`)
      const moves = eventsOf(id)
        .filter((e) => e.type === "deal.stage_changed")
        .map((e) => e.data["entry_id"])
      expect(
        listed.body.data.map((entry: { id: string }) => entry.id),
        `timeline of ${id}`
      ).toEqual(moves)
    }

    // Every event committed before the kill reaches the receiver at least once (the dead host's
    // claims are sent again once their lease, 5 s, has run out), and every delivery ends
    // succeeded. No write happened after the restart: the log is what was committed before the kill.
    const announced = events.filter((e) => e.type.startsWith("contact.") || e.type.startsWith("deal."))
    const expectedIds = new Set(announced.map((e) => e.event_id))
    const arrived = () =>
      new Set(receiver.received.filter((r) => expectedIds.has(String(r.headers["webhook-id"]))).map((r) => String(r.headers["webhook-id"])))
    await receiver.waitFor(() => arrived().size === expectedIds.size, `${expectedIds.size} events`, 60_000)
    let statuses: ReadonlyArray<{ status: string; n: number }> = []
    const deadline = Date.now() + 60_000
    do {
      statuses = await sql.query<{ status: string; n: number }>(
        `SELECT data ->> 'status' AS status, count(*)::int AS n FROM ds_deliveries GROUP BY 1`
      )
      if (statuses.length === 1 && statuses[0]!.status === "succeeded") break
      await new Promise((r) => setTimeout(r, 200))
    } while (Date.now() < deadline)
    expect(statuses).toEqual([{ status: "succeeded", n: expectedIds.size }])
    const [perEvent] = await sql.query<{ n: number }>(`SELECT count(DISTINCT data ->> 'event_id')::int AS n FROM ds_deliveries`)
    expect(perEvent!.n).toBe(expectedIds.size)

    // No record was written since: stop the host, rebuild every document from the log, and
    // find exactly the documents that were there. (Deliveries have recorded their attempts since.)
    expect((await eventLog(sql)).filter((e) => !e.stream_id.startsWith("dlv_")).length).toBe(
      events.filter((e) => !e.stream_id.startsWith("dlv_")).length
    )
    second.child.kill("SIGTERM")
    expect(await second.exit).toBe(0)
    const { after, before, summary } = await rebuildComparison(sql, databaseUrl)
    expect(after).toEqual(before)

    const duplicates = receiver.received.length - new Set(receiver.received.map((r) => String(r.headers["x-service-delivery"]))).size
    console.info(
      `crash (seed ${seed}): ${writes.length} writes, ${answered} answered before the kill, ${lost.length} lost in it ` +
        `(${lostCreates.filter((c) => c.applied).length} of ${lostCreates.length} lost creates and ` +
        `${restores.filter((w) => w.outcome === "lost" && restoreKept.get(w)).length} of ${restores.filter((w) => w.outcome === "lost").length} lost restores applied, all retried); ` +
        `${events.length} events, ${expectedIds.size} announced, ${receiver.received.length} requests received ` +
        `(${duplicates} resent); ${summary}; outcomes ${JSON.stringify(Object.fromEntries(byOutcome))}`
    )
  }, 240_000)
})

/** Refusals the workload causes on purpose: a record deleted or restored meanwhile (404), races (409). */
const expectedRefusal = (write: Write) => {
  if (write.outcome === 404 || write.outcome === 409) return write.target !== null
  // Its contact was deleted meanwhile.
  return write.outcome === 400 && write.kind === "create deal"
}

const countThroughApi = async (host: Spawned, path: string) => {
  let count = 0
  let cursor: string | null = null
  do {
    const query: string = `limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
    const page = await request(host, "GET", `${path}?${query}`)
    count += page.body.data.length
    cursor = page.body.next_cursor
  } while (cursor !== null)
  return count
}
