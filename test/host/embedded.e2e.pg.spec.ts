import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { lines, openRequest, run, serve, untilRefused } from "../http/cli.js"

// `dealstream serve` as `npm start` runs it: no storage named, so the embedded PostgreSQL under
// the data directory, started and stopped by the host itself. Each test has a data directory of its
// own, so that each runs alone and in any order.
const dataDirs: Array<string> = []
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

type Started = Awaited<ReturnType<typeof serve>>

/** Whether a postgres server process runs on this cluster directory. */
const serverRunsOn = (dir: string) =>
  execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .some((line) => line.includes(`-D ${dir} `) || line.endsWith(`-D ${dir}`))

/** A fresh data directory and what the tests do with it. */
const site = () => {
  const dataDir = mkdtempSync(join(tmpdir(), "dealstream-embedded-"))
  dataDirs.push(dataDir)
  const cluster = join(dataDir, "pg")
  const devKey = () => JSON.parse(readFileSync(join(dataDir, "dev-api-key.json"), "utf8")).api_key as string

  /** The embedded server is gone: stopped cleanly (PostgreSQL removes its pid file then) and exited. */
  const expectServerStopped = async () => {
    expect(existsSync(join(cluster, "postmaster.pid"))).toBe(false)
    // The pid file goes a moment before the process does: wait for the process to go.
    const deadline = Date.now() + 30_000
    while (serverRunsOn(cluster) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(serverRunsOn(cluster)).toBe(false)
  }

  return {
    dataDir,
    cluster,
    devKey,
    expectServerStopped,
    start: (group = false) => serve([], { DEALSTREAM_DATA_DIR: dataDir }, { cliDefault: true, group }),
    call: async (host: Started, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${host.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${devKey()}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return { status: response.status, body: (await response.json()) as any }
    },
    stop: async (host: Started) => {
      host.child.kill("SIGTERM")
      expect(await host.exit).toBe(0)
      await expectServerStopped()
    }
  }
}

describe("the host on embedded PostgreSQL (the default)", () => {
  it("initialises a cluster under <data-dir>/pg with the dev key beside it, stops it on SIGTERM, and starts again on it with the same records and key", async () => {
    const dir = site()
    const first = await dir.start()
    expect(first.stderr()).toMatch(
      new RegExp(`\\(storage: embedded PostgreSQL 127\\.0\\.0\\.1:\\d+/dealstream, data in ${dir.cluster.replace(/[.\\/]/g, "\\$&")}\\)`)
    )
    expect(first.stderr()).toContain("API key (new)")
    expect(existsSync(join(dir.cluster, "PG_VERSION"))).toBe(true)
    expect(statSync(join(dir.dataDir, "dev-api-key.json")).mode & 0o777).toBe(0o600)
    expect(serverRunsOn(dir.cluster)).toBe(true)

    const contact = await dir.call(first, "POST", "/v1/contacts", { email: "kept@example.com", first_name: "Kept" })
    expect(contact.status).toBe(201)
    const sales = (await dir.call(first, "GET", "/v1/pipelines")).body.data[0]
    const deal = await dir.call(first, "POST", "/v1/deals", {
      name: "Survivor",
      pipeline_id: sales.id,
      contact_ids: [contact.body.id],
      value: 1200
    })
    expect(deal.status).toBe(201)
    const moved = await dir.call(first, "PUT", `/v1/deals/${deal.body.id}/stage`, { stage_id: sales.stages[1].id, reason: "qualified" })
    expect(moved.status).toBe(200)
    const written = {
      contact: contact.body,
      deal: moved.body.deal ?? (await dir.call(first, "GET", `/v1/deals/${deal.body.id}`)).body,
      key: dir.devKey()
    }
    await dir.stop(first)

    // Started again on the same directory: the same records and the same dev key.
    const second = await dir.start()
    expect(second.stderr()).not.toContain("(new)")
    expect(second.stderr()).toContain(written.key)
    expect(dir.devKey()).toBe(written.key)
    const again = await dir.call(second, "GET", `/v1/contacts/${written.contact.id}`)
    expect(again.status).toBe(200)
    expect(again.body).toEqual({ ...written.contact, deal_ids: [written.deal.id] })
    expect((await dir.call(second, "GET", `/v1/deals/${written.deal.id}`)).body).toEqual(written.deal)
    expect((await dir.call(second, "GET", `/v1/deals/${written.deal.id}/timeline`)).body.data).toHaveLength(1)
    expect((await dir.call(second, "GET", "/v1/contacts")).body.data.map((c: { id: string }) => c.id)).toEqual([written.contact.id])
    await dir.stop(second)
  }, 240_000)

  it("on SIGTERM finishes the write in flight before it stops the database", async () => {
    const dir = site()
    const host = await dir.start()
    expect((await dir.call(host, "POST", "/v1/contacts", { email: "kept@example.com" })).status).toBe(201)
    // A request the host has begun to read, whose body is still arriving when SIGTERM comes: once
    // the host has stopped accepting connections, the rest arrives, and it must still be committed.
    const inFlight = await openRequest(
      host.url,
      "/v1/contacts",
      { authorization: `Bearer ${dir.devKey()}`, "content-type": "application/json" },
      '{"email":'
    )
    host.child.kill("SIGTERM")
    await untilRefused(host.url)
    const answer = await inFlight.finish('"inflight@example.com"}')
    expect(answer.status, answer.body).toBe(201)
    expect(await host.exit).toBe(0)
    await dir.expectServerStopped()

    // `dealstream rebuild` on the same (default) storage, then the write is there after a restart.
    const rebuilt = run(["rebuild"], { DEALSTREAM_DATA_DIR: dir.dataDir })
    expect(await rebuilt.exit, rebuilt.stderr()).toBe(0)
    // Every event of the log, the two contacts' creations among them (whether the workspace's
    // default pipeline is an event of its own is not this test's business).
    const progress = /rebuilding \[#{20}\] 100% (\d+)\/(\d+) events/.exec(rebuilt.stderr())
    expect(progress?.[1], rebuilt.stderr()).toBe(progress?.[2])
    const [summary] = lines(rebuilt.stdout())
    const counts = /^rebuilt (\d+) documents from (\d+) events in (\d+) streams \(\d+\.\d s\)$/.exec(summary ?? "")
    expect(counts, rebuilt.stdout()).not.toBeNull()
    expect(counts![2]).toBe(progress![2])
    expect(Number(counts![1])).toBeGreaterThanOrEqual(2)
    expect(Number(counts![2])).toBeGreaterThanOrEqual(2)
    const restarted = await dir.start()
    const listed = await dir.call(restarted, "GET", "/v1/contacts?sort=email")
    expect(listed.body.data.map((c: { email: string }) => c.email)).toEqual(["inflight@example.com", "kept@example.com"])
    await dir.stop(restarted)
  }, 240_000)

  it("Ctrl-C in a terminal signals PostgreSQL too; the host still stops and exits 0", async () => {
    const dir = site()
    const host = await dir.start(true)
    process.kill(-host.child.pid!, "SIGINT")
    // A host stuck on a database that stopped first would end only by its own limit (30 s), with
    // exit code 1 and a line saying so: exit 0 means the shutdown itself completed.
    expect(await host.exit, host.stderr()).toBe(0)
    expect(host.stderr()).not.toContain("did not stop within")
    await dir.expectServerStopped()
  }, 120_000)
})
