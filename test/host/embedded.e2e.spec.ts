import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { lines, run, serve } from "../http/cli.js"

// `dealstream serve` as `npm start` runs it: no storage named, so the embedded PostgreSQL under
// the data directory, started and stopped by the host itself.
const dataDir = mkdtempSync(join(tmpdir(), "dealstream-embedded-"))
const cluster = join(dataDir, "pg")
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const start = (group = false) => serve([], { DEALSTREAM_DATA_DIR: dataDir }, { cliDefault: true, group })
type Started = Awaited<ReturnType<typeof start>>

const devKey = () => JSON.parse(readFileSync(join(dataDir, "dev-api-key.json"), "utf8")).api_key as string

const call = async (host: Started, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${host.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${devKey()}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: await response.json() as any }
}

/** Whether a postgres server process runs on this cluster directory. */
const serverRunsOn = (dir: string) =>
  execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n").some((line) => line.includes(`-D ${dir} `) || line.endsWith(`-D ${dir}`))

/** The embedded server is gone: stopped cleanly (PostgreSQL removes its pid file then) and exited. */
const expectServerStopped = async () => {
  expect(existsSync(join(cluster, "postmaster.pid"))).toBe(false)
  // The pid file goes a moment before the process does.
  for (let i = 0; i < 20 && serverRunsOn(cluster); i++) await new Promise((r) => setTimeout(r, 100))
  expect(serverRunsOn(cluster)).toBe(false)
}

const stop = async (host: Started) => {
  host.child.kill("SIGTERM")
  expect(await host.exit).toBe(0)
  await expectServerStopped()
}

describe("the host on embedded PostgreSQL (the default)", () => {
  let written: { contact: any; deal: any; key: string }

  it("initialises a cluster under <data-dir>/pg on first start, with the dev key beside it, and stops it on SIGTERM", async () => {
    const first = await start()
    expect(first.stderr()).toMatch(new RegExp(`\\(storage: embedded PostgreSQL 127\\.0\\.0\\.1:\\d+/dealstream, data in ${cluster.replace(/[.\\/]/g, "\\$&")}\\)`))
    expect(first.stderr()).toContain("API key (new)")
    expect(existsSync(join(cluster, "PG_VERSION"))).toBe(true)
    expect(statSync(join(dataDir, "dev-api-key.json")).mode & 0o777).toBe(0o600)
    expect(serverRunsOn(cluster)).toBe(true)

    const contact = await call(first, "POST", "/v1/contacts", { email: "kept@example.com", first_name: "Kept" })
    expect(contact.status).toBe(201)
    const sales = (await call(first, "GET", "/v1/pipelines")).body.data[0]
    const deal = await call(first, "POST", "/v1/deals", { name: "Survivor", pipeline_id: sales.id, contact_ids: [contact.body.id], value: 1200 })
    expect(deal.status).toBe(201)
    const moved = await call(first, "PUT", `/v1/deals/${deal.body.id}/stage`, { stage_id: sales.stages[1].id, reason: "qualified" })
    expect(moved.status).toBe(200)
    written = { contact: contact.body, deal: moved.body.deal ?? (await call(first, "GET", `/v1/deals/${deal.body.id}`)).body, key: devKey() }
    await stop(first)
  }, 120_000)

  it("starts again on the same directory with the same records and the same dev key", async () => {
    const second = await start()
    expect(second.stderr()).not.toContain("(new)")
    expect(second.stderr()).toContain(written.key)
    expect(devKey()).toBe(written.key)

    const contact = await call(second, "GET", `/v1/contacts/${written.contact.id}`)
    expect(contact.status).toBe(200)
    expect(contact.body).toEqual({ ...written.contact, deal_ids: [written.deal.id] })
    const deal = await call(second, "GET", `/v1/deals/${written.deal.id}`)
    expect(deal.body).toEqual(written.deal)
    expect((await call(second, "GET", `/v1/deals/${written.deal.id}/timeline`)).body.data).toHaveLength(1)
    expect((await call(second, "GET", "/v1/contacts")).body.data.map((c: { id: string }) => c.id)).toEqual([written.contact.id])
    await stop(second)
  }, 120_000)

  it("on SIGTERM finishes the write in flight before it stops the database", async () => {
    const third = await start()
    const url = new URL(third.url)
    // A request whose body is still arriving when SIGTERM comes: it must still be committed.
    const answer = await new Promise<{ status: number; body: string }>((done, fail) => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: "/v1/contacts",
        method: "POST",
        headers: { authorization: `Bearer ${devKey()}`, "content-type": "application/json", "transfer-encoding": "chunked" }
      }, (res) => {
        let body = ""
        res.on("data", (chunk) => (body += chunk))
        res.on("end", () => done({ status: res.statusCode!, body }))
      })
      req.on("error", fail)
      req.write("{\"email\":")
      setTimeout(() => {
        third.child.kill("SIGTERM")
        setTimeout(() => req.end("\"inflight@example.com\"}"), 500)
      }, 300)
    })
    expect(answer.status, answer.body).toBe(201)
    expect(await third.exit).toBe(0)
    await expectServerStopped()

    // `dealstream rebuild` on the same (default) storage, then the write is there after a restart.
    const rebuilt = run(["rebuild"], { DEALSTREAM_DATA_DIR: dataDir })
    expect(await rebuilt.exit, rebuilt.stderr()).toBe(0)
    // Documents: the pipeline, two contacts, the deal, its timeline entry. Events: those five records' creations and the stage move.
    expect(rebuilt.stderr()).toContain("rebuilding [####################] 100% 6/6 events")
    expect(lines(rebuilt.stdout())).toEqual([expect.stringMatching(/^rebuilt 5 documents from 6 events in 5 streams \(\d+\.\d s\)$/)])
    const fourth = await start()
    const listed = await call(fourth, "GET", "/v1/contacts?sort=email")
    expect(listed.body.data.map((c: { email: string }) => c.email)).toEqual(["inflight@example.com", "kept@example.com"])
    await stop(fourth)
  }, 180_000)

  it("Ctrl-C in a terminal signals PostgreSQL too; the host still stops at once and exits 0", async () => {
    const fifth = await start(true)
    const began = Date.now()
    process.kill(-fifth.child.pid!, "SIGINT")
    expect(await fifth.exit).toBe(0)
    expect(Date.now() - began).toBeLessThan(10_000)
    await expectServerStopped()
  }, 120_000)
})
