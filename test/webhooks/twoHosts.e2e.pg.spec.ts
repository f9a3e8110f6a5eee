import { readdir, readFile, readlink } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect, Exit, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { serve } from "../http/cli.js"
import { testDatabase } from "../support/pg.js"

// Two real hosts (the built CLI, `npx tsc -b` first) on one PostgreSQL database share one webhook.
// Correctness comes from the database alone: SKIP LOCKED claims make every delivery go out once
// while both hosts live, and a dead host's leases expire so the other sends its deliveries again.

const KEY = "key_two_hosts_0123456789"

type HostName = "A" | "B"

interface Spawned {
  readonly name: HostName
  readonly url: string
  readonly child: Awaited<ReturnType<typeof serve>>["child"]
  readonly exit: Promise<number | null>
  readonly stderr: () => string
}

// Everything a test starts, stopped in afterAll whatever happened (and at the end of each test).
const hosts: Array<Spawned> = []
const receivers: Array<Receiver> = []
const databases: Array<Scope.Closeable> = []

const stopHost = async (host: Spawned) => {
  if (host.child.exitCode !== null || host.child.signalCode !== null) return
  host.child.kill("SIGTERM")
  const stopped = await Promise.race([host.exit.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))])
  if (!stopped) {
    host.child.kill("SIGKILL")
    await host.exit
  }
}

const stopEverything = async () => {
  await Promise.all(hosts.splice(0).map(stopHost))
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()))
  await Promise.all(databases.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
}

afterAll(stopEverything, 60_000)

// --- Which host sent a request ---------------------------------------------------------------
// No header says which host sent a delivery, and none should. The honest signal is the socket: each
// host is a process with its own keep-alive pool, so the receiver's peer port is a socket of exactly
// one of the two processes (Linux: /proc/net/tcp gives the socket's inode, /proc/<pid>/fd its owner).

const socketInode = async (localPort: number, remotePort: number): Promise<string | null> => {
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "")
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      const local = Number.parseInt(fields[1]?.split(":").at(-1) ?? "", 16)
      const remote = Number.parseInt(fields[2]?.split(":").at(-1) ?? "", 16)
      if (local === localPort && remote === remotePort && fields[9] !== undefined) return fields[9]
    }
  }
  return null
}

const ownerOf = async (socket: Socket, receiverPort: number): Promise<HostName | null> => {
  const inode = await socketInode(socket.remotePort ?? -1, receiverPort)
  if (inode === null) return null
  for (const host of hosts) {
    const dir = `/proc/${host.child.pid}/fd`
    const fds = await readdir(dir).catch(() => [] as Array<string>)
    for (const fd of fds) {
      if ((await readlink(`${dir}/${fd}`).catch(() => "")) === `socket:[${inode}]`) return host.name
    }
  }
  return null
}

// --- The receiver ------------------------------------------------------------------------------

interface Received {
  readonly webhookId: string
  readonly deliveryId: string
  readonly type: string
  readonly contactId: string
  readonly at: number
  /** Resolved when the connection was accepted: the host process whose socket it is. */
  readonly owner: Promise<HostName | null>
  answered: boolean
}

interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  readonly webhookIds: () => Set<string>
  close: () => Promise<void>
}

/** Records every POST and answers 200, after `delayMs` if given. */
const startReceiver = async (delayMs = 0): Promise<Receiver> => {
  const received: Array<Received> = []
  const owners = new WeakMap<Socket, Promise<HostName | null>>()
  let port = 0
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      let body: any = null
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        body = null
      }
      const entry: Received = {
        webhookId: String(request.headers["webhook-id"]),
        deliveryId: String(request.headers["x-service-delivery"]),
        type: String(body?.type),
        contactId: String(body?.data?.contact?.id),
        at: Date.now(),
        owner: owners.get(request.socket) ?? Promise.resolve(null),
        answered: false
      }
      received.push(entry)
      const answer = () => {
        entry.answered = true
        if (!response.destroyed) response.writeHead(200, { "content-type": "text/plain" }).end("ok")
      }
      if (delayMs > 0) setTimeout(answer, delayMs)
      else answer()
    })
  })
  server.on("connection", (socket: Socket) => {
    const owner = ownerOf(socket, port)
    owner.catch(() => null)
    owners.set(socket, owner)
  })
  // Idle keep-alive sockets stay open: a close racing the sender's reuse would fail an attempt.
  server.keepAliveTimeout = 120_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    webhookIds: () => new Set(received.map((r) => r.webhookId)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  receivers.push(receiver)
  return receiver
}

// --- Hosts and their API -----------------------------------------------------------------------

const freshDatabase = async () => {
  const scope = Effect.runSync(Scope.make())
  databases.push(scope)
  return Effect.runPromise(Scope.provide(testDatabase, scope))
}

/** Hosts A and B on one database, started together (migrations take an advisory lock). */
const startHosts = async (databaseUrl: string, timeout: string, lease?: string) => {
  const args = [
    "--storage",
    "postgres",
    "--database-url",
    databaseUrl,
    "--api-keys",
    `ws_two_hosts:${KEY}`,
    "--rate-limit",
    "100000",
    "--rate-burst",
    "100000",
    "--allow-insecure-webhooks",
    "--webhook-timeout",
    timeout,
    "--webhook-retry-schedule",
    "300ms,600ms,1s",
    ...(lease === undefined ? [] : ["--webhook-lease", lease])
  ]
  const started = await Promise.allSettled(
    (["A", "B"] as const).map(async (name) => {
      const cli = await serve(args)
      const host: Spawned = { name, url: cli.url, child: cli.child, exit: cli.exit, stderr: cli.stderr }
      hosts.push(host)
      return host
    })
  )
  const failed = started.find((s) => s.status === "rejected")
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason
  return started.map((s) => (s as PromiseFulfilledResult<Spawned>).value) as [Spawned, Spawned]
}

const call = async (host: Spawned, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${path} on host ${host.name}: ${response.status} ${text}`)
  return text === "" ? null : JSON.parse(text)
}

interface Delivery {
  readonly id: string
  readonly event_id: string
  readonly event_type: string
  readonly status: string
  readonly attempt_count: number
}

/** Every page of a webhook's deliveries (100 at a time, following next_cursor). */
const allDeliveries = async (host: Spawned, webhookId: string, status?: string) => {
  const all: Array<Delivery> = []
  let cursor: string | null = null
  do {
    const query: string = `limit=100${status === undefined ? "" : `&status=${status}`}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
    const page: { data: Array<Delivery>; next_cursor: string | null } = await call(
      host,
      "GET",
      `/v1/webhooks/${webhookId}/deliveries?${query}`
    )
    all.push(...page.data)
    cursor = page.next_cursor
  } while (cursor !== null)
  return all
}

/** Runs `tasks` with at most `concurrency` in flight. */
const pool = async <A>(tasks: ReadonlyArray<() => Promise<A>>, concurrency: number): Promise<Array<A>> => {
  const results: Array<A> = []
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < tasks.length) {
        const i = next++
        results[i] = await tasks[i]!()
      }
    })
  )
  return results
}

/** Polls `check` until it holds; fails with `what` and the last state after `timeoutMs`. */
const until = async (check: () => boolean | Promise<boolean>, what: () => string, timeoutMs: number, everyMs = 50) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

const counts = <A>(items: ReadonlyArray<A>) => {
  const map = new Map<A, number>()
  for (const item of items) map.set(item, (map.get(item) ?? 0) + 1)
  return map
}

describe("webhooks: two host processes on one PostgreSQL database", () => {
  it("deliver 500 events made on both hosts exactly once each, both hosts sending", async () => {
    const t0 = Date.now()
    const receiver = await startReceiver()
    // A timeout no attempt to a receiver on this machine comes near, however loaded: a timed-out
    // attempt is rightly sent again, and this test is about claims, so every send must be the one
    // attempt of its delivery. (A lease is the timeout + 30 s: none can expire during the test.)
    const [a, b] = await startHosts(await freshDatabase(), "120s")
    const webhook = await call(a, "POST", "/v1/webhooks", { url: receiver.url, events: ["*"] })
    const tStarted = Date.now()

    // 300 contacts created alternately on A and B, then 200 of them updated on the host that did
    // not create them: 500 events, 8 requests in flight at a time.
    const created: Array<{ id: string; host: Spawned }> = await pool(
      Array.from({ length: 300 }, (_, i) => async () => {
        const host = i % 2 === 0 ? a : b
        return { id: (await call(host, "POST", "/v1/contacts", { email: `c${i}@example.com` })).id as string, host }
      }),
      8
    )
    await pool(
      created.slice(0, 200).map(
        ({ id, host }, i) =>
          () =>
            call(host === a ? b : a, "PATCH", `/v1/contacts/${id}`, { title: `t${i}` })
      ),
      8
    )
    const tWritten = Date.now()

    await until(
      () => receiver.webhookIds().size >= 500,
      () => `500 webhook-ids, got ${receiver.webhookIds().size}`,
      90_000
    )
    const tReceived = Date.now()

    // Every delivery recorded as succeeded (listed from the other host than the one that registered it).
    let succeeded: Array<Delivery> = []
    await until(
      async () => {
        succeeded = await allDeliveries(b, webhook.id, "succeeded")
        return succeeded.length >= 500
      },
      () => `500 succeeded deliveries, got ${succeeded.length}`,
      60_000,
      250
    )
    const all = await allDeliveries(a, webhook.id)

    // Exactly one delivery per event, all succeeded at the first attempt, each received once.
    expect(succeeded.length).toBe(500)
    expect(all.length).toBe(500)
    expect(new Set(all.map((d) => d.event_id)).size).toBe(500)
    expect(all.filter((d) => d.status !== "succeeded" || d.attempt_count !== 1)).toEqual([])
    expect(receiver.received.length).toBe(500)
    expect([...counts(receiver.received.map((r) => r.deliveryId)).values()].filter((n) => n > 1)).toEqual([])
    expect(new Set(receiver.received.map((r) => r.deliveryId))).toEqual(new Set(all.map((d) => d.id)))
    expect(receiver.webhookIds()).toEqual(new Set(all.map((d) => d.event_id)))
    // What was received is what was written: one created and at most one update per contact.
    const byType = counts(receiver.received.map((r) => `${r.type} ${r.contactId}`))
    for (const [i, { id }] of created.entries()) {
      expect(byType.get(`contact.created ${id}`)).toBe(1)
      expect(byType.get(`contact.updated ${id}`)).toBe(i < 200 ? 1 : undefined)
    }

    // Both hosts sent some: every connection the receiver accepted belongs to one of the two.
    const owners = await Promise.all(receiver.received.map((r) => r.owner))
    const sentBy = counts(owners)
    expect(sentBy.get(null), "requests whose sending process /proc could not name").toBeUndefined()
    expect(sentBy.get("A")).toBeGreaterThan(0)
    expect(sentBy.get("B")).toBeGreaterThan(0)

    const span = (receiver.received.at(-1)!.at - receiver.received[0]!.at) / 1000
    console.info(
      `two hosts: 500 events written in ${tWritten - tStarted} ms, all received ${tReceived - tWritten} ms after the last write ` +
        `(${(500 / span).toFixed(0)} deliveries/s between the first and last receipt); sent by A ${sentBy.get("A")}, by B ${sentBy.get("B")}; ` +
        `hosts up in ${tStarted - t0} ms`
    )
    await stopEverything()
  }, 240_000)

  it("a host killed with SIGKILL mid-batch: the other sends everything, at least once", async () => {
    // A slow receiver (200 ms per answer) so that a batch of attempts is in flight on A when it
    // dies, with more of its claim waiting for a slot. A's leases (5 s, past the 2 s timeout)
    // expire 5 s after their claim; B then claims and sends them.
    const receiver = await startReceiver(200)
    const [a, b] = await startHosts(await freshDatabase(), "2s", "5s")
    const webhook = await call(a, "POST", "/v1/webhooks", { url: receiver.url, events: ["*"] })

    // Contacts created on B, 3 at a time, until B alone has delivered 50 more after A died (at most 600).
    // When each create was sent: its delivery cannot have been claimed (and leased) before that.
    const contactIds: Array<string> = []
    const createSentAt = new Map<string, number>()
    let stopWriting = false
    const writer = pool(
      Array.from({ length: 3 }, (_, w) => async () => {
        for (let i = w; !stopWriting && i < 600; i += 3) {
          const sentAt = Date.now()
          const id: string = (await call(b, "POST", "/v1/contacts", { email: `k${i}@example.com` })).id
          contactIds.push(id)
          createSentAt.set(id, sentAt)
        }
      }),
      3
    )

    // Kill A once 50 requests have arrived and several of A's are being answered right now: the
    // middle of a batch it claimed in one statement.
    let inFlightOnA: Array<Received> = []
    const owned = new Map<Received, HostName | null>()
    await until(
      async () => {
        for (const r of receiver.received) if (!owned.has(r)) owned.set(r, await r.owner)
        if (receiver.received.length < 50) return false
        inFlightOnA = receiver.received.filter((r) => !r.answered && owned.get(r) === "A")
        if (inFlightOnA.length < 2) return false
        a.child.kill("SIGKILL")
        return true
      },
      () =>
        `two attempts of host A in flight after 50 receipts (got ${receiver.received.length}, by A ${[...owned.values()].filter((o) => o === "A").length}, writes ${contactIds.length})`,
      60_000,
      5
    )
    const tKilled = Date.now()
    const receivedBeforeKill = receiver.received.length
    expect(await a.exit).toBeNull()
    expect(a.child.signalCode).toBe("SIGKILL")

    // B keeps taking writes and delivering alone for a while.
    await until(
      () => receiver.received.length >= receivedBeforeKill + 50,
      () => `50 more receipts after the kill, got ${receiver.received.length - receivedBeforeKill}`,
      60_000
    )
    stopWriting = true
    await writer
    const tWritten = Date.now()

    // Only B is left. What A had in flight goes out again from B, under the same delivery id, once
    // A's leases have expired; then every delivery is recorded as succeeded.
    const expected = contactIds.length
    const resent = () => inFlightOnA.filter((lost) => receiver.received.filter((r) => r.deliveryId === lost.deliveryId).length >= 2)
    await until(
      () => resent().length === inFlightOnA.length,
      () => `A's ${inFlightOnA.length} deliveries in flight to be sent again, ${resent().length} were`,
      120_000,
      100
    )
    const tRecovered = Date.now()
    let all: Array<Delivery> = []
    await until(
      async () => {
        all = await allDeliveries(b, webhook.id)
        return all.length === expected && all.every((d) => d.status === "succeeded")
      },
      () => `${expected} deliveries all succeeded, got ${JSON.stringify([...counts(all.map((d) => d.status))])}`,
      60_000,
      250
    )

    // None lost: every event announced, by exactly one delivery, received at least once.
    expect(all.length).toBe(expected)
    expect(new Set(all.map((d) => d.event_id)).size).toBe(expected)
    expect(receiver.webhookIds()).toEqual(new Set(all.map((d) => d.event_id)))
    expect(new Set(receiver.received.map((r) => r.deliveryId))).toEqual(new Set(all.map((d) => d.id)))
    const createdIn = new Set(receiver.received.filter((r) => r.type === "contact.created").map((r) => r.contactId))
    expect(createdIn).toEqual(new Set(contactIds))
    // The second send came from B, and not before A's lease ran out: the lease lasts 5 s from A's
    // claim, which came after the create that scheduled the delivery was sent (the same clock: one
    // machine), so no load can bring the resend nearer to that than 5 s.
    for (const lost of inFlightOnA) {
      const again = receiver.received.filter((r) => r.deliveryId === lost.deliveryId && r !== lost)
      expect(await Promise.all(again.map((r) => r.owner))).toEqual(again.map(() => "B"))
      expect(lost.type).toBe("contact.created")
      const sentAt = createSentAt.get(lost.contactId)
      expect(sentAt, `the create of ${lost.contactId}`).toBeDefined()
      expect(Math.min(...again.map((r) => r.at)) - sentAt!, `${lost.deliveryId} sent again after A's lease`).toBeGreaterThanOrEqual(5_000)
    }
    // Duplicates come from A's death only: a delivery received twice had a copy sent by A, unless B
    // itself recorded more than one attempt of it (a timeout under load).
    const timesReceived = counts(receiver.received.map((r) => r.deliveryId))
    const attempts = new Map(all.map((d) => [d.id, d.attempt_count]))
    const owners = await Promise.all(receiver.received.map((r) => r.owner))
    const sentByA = new Set(receiver.received.filter((_, i) => owners[i] === "A").map((r) => r.deliveryId))
    for (const [deliveryId, times] of timesReceived) {
      if (times < 2) continue
      expect(sentByA.has(deliveryId) || attempts.get(deliveryId)! > 1, `${deliveryId} received ${times} times`).toBe(true)
    }
    const duplicates = receiver.received.length - expected
    expect(duplicates).toBeGreaterThanOrEqual(inFlightOnA.length)

    const afterKill = receiver.received.slice(receivedBeforeKill)
    const sentTwice = [...timesReceived.values()].filter((n) => n > 1).length
    console.info(
      `kill: ${expected} events (writes ended ${tWritten - tKilled} ms after the kill), ${receivedBeforeKill} received before A died ` +
        `with ${inFlightOnA.length} of its attempts in flight; ${afterKill.length} received after; ${duplicates} duplicate sends ` +
        `(${sentTwice} deliveries sent twice or more); A's in-flight deliveries sent again ${tRecovered - tKilled} ms after the kill, all succeeded ${Date.now() - tKilled} ms after it`
    )
    await stopEverything()
  }, 300_000)
})
