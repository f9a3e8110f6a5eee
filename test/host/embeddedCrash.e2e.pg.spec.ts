import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { lines, run, serve } from "../http/cli.js"
import { type Adopted, serveAdopted, stateOf, until } from "./nonReapingParent.js"

// The default storage after a crash. A host SIGKILLed (or OOM-killed) cannot stop its embedded
// PostgreSQL, which keeps running on the cluster, and no second server can start there: the host
// started again used to hang without a word (and a host started next to a running one too). Now a
// server left behind by a dead host is stopped and the host starts on its data; a server whose
// host still runs is refused at once, in one line. The first host's parent never reaps (as a PID 1
// that never reaps), so the server it leaves is adopted by a process that will not reap it either:
// stopped, it stays a zombie, which is stopped all the same (it used to be waited for, 20 s, then
// "does not stop").

const KEY = "key_embedded_crash_0123456789"
const dataDir = mkdtempSync(join(tmpdir(), "dealstream-embedded-crash-"))
const cluster = join(dataDir, "pg")
const args = ["--data-dir", dataDir, "--api-keys", `ws_crash:${KEY}`]

const serverPid = () => Number(readFileSync(join(cluster, "postmaster.pid"), "utf8").split("\n")[0])

let first: Adopted | undefined
const started: Array<Awaited<ReturnType<typeof serve>>> = []
afterAll(async () => {
  for (const host of started) {
    if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill("SIGTERM")
    await host.exit
  }
  // Kills the first host's process group (its server with it, if the test left it running) and
  // reaps them.
  await first?.finish()
  rmSync(dataDir, { recursive: true, force: true })
}, 90_000)

const call = async (url: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: (await response.json().catch(() => null)) as any }
}

describe("the embedded PostgreSQL of a host that was SIGKILLed", () => {
  it("is stopped when the host starts again, which serves the same data; a host next to a running one is refused", async () => {
    first = await serveAdopted(args)
    const contact = await call(first.url, "POST", "/v1/contacts", { email: "survivor@example.com" })
    expect(contact.status).toBe(201)
    const leftBehind = serverPid()

    process.kill(first.host, "SIGKILL")
    const host = first.host
    await until(() => stateOf(host) === "Z", "the host to die", 10_000)
    expect(stateOf(leftBehind) ?? "gone", "the dead host's server still runs").not.toMatch(/^(Z|X|gone)$/)

    const second = await serve(args, {}, { cliDefault: true })
    started.push(second)
    expect(stateOf(leftBehind), "the server left behind, stopped (and not reaped)").toBe("Z")
    expect(serverPid()).not.toBe(leftBehind)
    expect(await call(second.url, "GET", `/v1/contacts/${contact.body.id}`)).toEqual({ status: 200, body: contact.body })
    expect((await call(second.url, "POST", "/v1/contacts", { email: "after@example.com" })).status).toBe(201)

    // A third host on the same data directory while the second runs: refused in one line, and the
    // second host's server is left alone.
    const third = run(["serve", "--host", "127.0.0.1", "--port", "0", ...args])
    expect(await third.exit).toBe(1)
    expect(lines(third.stderr())).toEqual([
      `dealstream: cannot start embedded PostgreSQL in ${cluster}: a server (pid ${serverPid()}) already runs there, ` +
        "probably another host's; stop that host or use another data directory"
    ])
    expect((await call(second.url, "GET", "/readyz")).status).toBe(200)

    second.child.kill("SIGTERM")
    expect(await second.exit).toBe(0)
    expect(existsSync(join(cluster, "postmaster.pid"))).toBe(false)
  }, 90_000)
})
