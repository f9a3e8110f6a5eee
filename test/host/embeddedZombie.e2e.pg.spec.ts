import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isDeepStrictEqual } from "node:util"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { type Cli, lines, run } from "../http/cli.js"
import { type Adopted, serveAdopted, stateOf, until } from "./nonReapingParent.js"

// The default storage after the whole host is killed, as a new user would: `npm start` in its own
// process group, clients writing, the group SIGKILLed, started again at once. The host and its
// PostgreSQL die together; the postmaster is a zombie until whoever adopted it reaps it, forever
// where PID 1 never reaps, and PostgreSQL's own check (kill(pid, 0)) takes a zombie for a running
// server: the second start failed with 'lock file "postmaster.pid" already exists'. Here the host's
// parent never reaps, so the zombie is certain, not a race with init.

const CLIENTS = 16
const BEFORE_KILL = 160

interface Setup {
  readonly dataDir: string
  readonly cluster: string
  readonly key: string
  readonly args: ReadonlyArray<string>
}

const setups: Array<Setup> = []
const parents: Array<Adopted> = []
const hosts: Array<Cli> = []
const databaseClients: Array<pg.Client> = []

const setup = (name: string): Setup => {
  const dataDir = mkdtempSync(join(tmpdir(), `dealstream-embedded-${name}-`))
  const key = `key_embedded_${name}_0123456789`
  const made = { dataDir, cluster: join(dataDir, "pg"), key, args: ["--data-dir", dataDir, "--api-keys", `ws_${name}:${key}`] }
  setups.push(made)
  return made
}

afterAll(async () => {
  // A backend kept busy by the second test ends its loop (it would give up after 120 s anyway).
  for (const { cluster } of setups) {
    try {
      writeFileSync(join(cluster, "release"), "")
    } catch {
      // no cluster: nothing runs on it
    }
  }
  for (const client of databaseClients) await client.end().catch(() => undefined)
  for (const host of hosts) {
    if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill("SIGTERM")
    await host.exit
  }
  // Kills what is left of each first host's group and reaps the zombies (host, postmaster, backends).
  for (const parent of parents) await parent.finish()
  for (const { dataDir } of setups) rmSync(dataDir, { recursive: true, force: true })
}, 120_000)

/** postmaster.pid: the server (line 1), its port (4), its System V segment's id (7: `key id`). */
const lockOf = (cluster: string) => {
  const lines = readFileSync(join(cluster, "postmaster.pid"), "utf8").split("\n")
  return { pid: Number(lines[0]), port: Number(lines[3]), segment: (lines[6] ?? "").trim().split(/\s+/)[1]! }
}

/** How many processes are attached to a System V segment (nattch), 0 once it is gone. */
const attachedTo = (segment: string) => {
  const [header, ...rows] = readFileSync("/proc/sysvipc/shm", "utf8")
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
  const row = rows.find((columns) => columns[header!.indexOf("shmid")] === segment)
  return row === undefined ? 0 : Number(row[header!.indexOf("nattch")])
}

const dead = (pid: number) => [null, "Z", "X"].includes(stateOf(pid))

/** `dealstream serve` from this process (which reaps), and its URL once it listens. */
const serveAgain = (args: ReadonlyArray<string>) => {
  const host = run(["serve", "--host", "127.0.0.1", "--port", "0", ...args])
  hosts.push(host)
  const url = until(() => /listening on http/.test(host.stderr()) || host.child.exitCode !== null, "the host to listen", 90_000).then(
    () => {
      const found = /listening on (http:\/\/\S+)/.exec(host.stderr())?.[1]
      if (found === undefined) throw new Error(`exited early: ${host.stderr()}`)
      return found
    }
  )
  url.catch(() => {}) // awaited by the test, which may fail before it does
  return { host, url }
}

describe("a host whose process group was SIGKILLed, its PostgreSQL left a zombie", () => {
  it("starts again at once on the same data, and every acknowledged write is there", async () => {
    const { args, cluster, key } = setup("zombie")
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const first = await serveAdopted(args)
    parents.push(first)
    const postmaster = lockOf(cluster).pid

    // Clients write until the host dies under them; what was answered 201 was acknowledged.
    const acknowledged: Array<{ readonly id: string; readonly body: unknown }> = []
    const otherAnswers: Array<number> = []
    let enough = () => {}
    const enoughWritten = new Promise<void>((done) => (enough = done))
    const client = async (n: number) => {
      for (let i = 0; ; i++) {
        let response: Response
        try {
          response = await fetch(`${first.url}/v1/contacts`, {
            method: "POST",
            headers,
            body: JSON.stringify({ email: `writer${n}-${i}@example.com` })
          })
        } catch {
          return // the host is gone
        }
        const body = (await response.json().catch(() => null)) as { id?: string } | null
        if (response.status !== 201 || typeof body?.id !== "string") {
          otherAnswers.push(response.status)
          return
        }
        acknowledged.push({ id: body.id, body })
        if (acknowledged.length >= BEFORE_KILL) enough()
      }
    }
    // A client stops at the first answer that is not 201 (none is expected) or when the host is gone.
    const clients = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)))
    await Promise.race([enoughWritten, clients])
    expect(acknowledged.length, "writes acknowledged while all clients still ran").toBeGreaterThanOrEqual(BEFORE_KILL)

    process.kill(-first.host, "SIGKILL")
    await clients
    await until(() => dead(postmaster) && dead(first.host), "the host and its postmaster to die", 10_000)
    expect(stateOf(postmaster), "the killed postmaster, not reaped").toBe("Z")
    expect(stateOf(first.host), "the killed host, not reaped").toBe("Z")

    const second = serveAgain(args)
    const url = await second.url
    expect(lockOf(cluster).pid).not.toBe(postmaster)
    expect(stateOf(postmaster), "the zombie is still there: its lock was cleared, not outwaited").toBe("Z")

    const missing: Array<string> = []
    const changed: Array<string> = []
    const pending = [...acknowledged]
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
          const response = await fetch(`${url}/v1/contacts/${next.id}`, { headers })
          if (response.status !== 200) missing.push(`${next.id}: ${response.status}`)
          else if (!isDeepStrictEqual(await response.json(), next.body)) changed.push(next.id)
        }
      })
    )
    expect(missing).toEqual([])
    expect(changed).toEqual([])
    expect(otherAnswers, "answers other than 201 before the kill").toEqual([])
  }, 150_000)

  it("waits for a backend of the dead server that still holds its shared memory, then starts", async () => {
    const { args, cluster, key } = setup("backend")
    const first = await serveAdopted(args)
    parents.push(first)
    const contact = await fetch(`${first.url}/v1/contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "kept@example.com" })
    })
    expect(contact.status).toBe(201)
    const { id } = (await contact.json()) as { id: string }
    const lock = lockOf(cluster)

    // A backend looks at its postmaster only when it waits (for a client, a lock, a latch); one busy
    // in a loop outlives it. This one loops until the file `release` appears in the data directory.
    const connect = async () => {
      const client = new pg.Client({ host: "127.0.0.1", port: lock.port, user: "postgres", password: "dealstream", database: "postgres" })
      client.on("error", () => {}) // the server dies under it
      databaseClients.push(client)
      await client.connect()
      return client
    }
    const busy = await connect()
    const backend = (await busy.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid
    const loop = busy
      .query(
        "DO $$ BEGIN WHILE pg_stat_file('release', true) IS NULL AND clock_timestamp() < now() + interval '120 s' LOOP END LOOP; END $$"
      )
      .then(
        () => "released",
        (error: Error) => error.message
      )
    const watcher = await connect()
    while ((await watcher.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [backend])).rowCount !== 1) {
      await new Promise((r) => setTimeout(r, 50))
    }
    await watcher.end()

    process.kill(-first.host, "SIGKILL")
    await until(() => dead(lock.pid) && attachedTo(lock.segment) === 1, "the postmaster and all but the busy backend to die", 10_000)
    expect(stateOf(lock.pid), "the killed postmaster, not reaped").toBe("Z")
    expect(dead(backend), "the busy backend outlived its postmaster").toBe(false)

    const second = serveAgain(args)
    await until(
      () => /waiting for \d+ process/.test(second.host.stderr()) || second.host.child.exitCode !== null,
      "the host to wait for the backend",
      60_000
    )
    expect(lines(second.host.stderr())).toContain(
      `[embedded-postgres] waiting for 1 process(es) of the server that ran in ${cluster} (pid ${lock.pid}, gone) to exit`
    )
    expect(lockOf(cluster).pid, "the lock is not cleared while the backend holds the memory").toBe(lock.pid)

    writeFileSync(join(cluster, "release"), "")
    expect(await loop).toBe("released")
    const url = await second.url
    expect(dead(backend)).toBe(true)
    expect(attachedTo(lock.segment)).toBe(0)
    expect(lockOf(cluster).pid).not.toBe(lock.pid)
    const kept = await fetch(`${url}/v1/contacts/${id}`, { headers: { authorization: `Bearer ${key}` } })
    expect(kept.status).toBe(200)
    rmSync(join(cluster, "release"))
  }, 150_000)
})
