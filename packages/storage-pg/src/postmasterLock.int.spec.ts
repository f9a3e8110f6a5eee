import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { attachedIn, programOf, readLockFile, stateOf } from "./postmasterLock.js"

const dir = mkdtempSync(join(tmpdir(), "dealstream-lockfile-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lockFile = (text: string) => {
  writeFileSync(join(dir, "postmaster.pid"), text)
  return readLockFile(dir)
}

// As PostgreSQL 18 wrote it for a server killed with its host (pidfile.h: pid, data directory,
// start time, port, socket directory, listen address, "shmkey shmid", status).
const killed = "13717\n/tmp/data/pg\n1795454232\n41105\n/tmp\n127.0.0.1\n  2163796        60\nready   \n"

describe("postmaster.pid", () => {
  it("names the postmaster, its directory, port, socket directory and shared memory segment", () => {
    expect(lockFile(killed)).toEqual({
      path: join(dir, "postmaster.pid"),
      text: killed,
      pid: 13717,
      dataDir: "/tmp/data/pg",
      port: 41105,
      socketDir: "/tmp",
      sharedMemory: { key: 2163796n, id: 60n }
    })
  })

  it("has no segment yet early in a start, and a single-user backend's negative pid is not a postmaster", () => {
    expect(lockFile("13717\n/tmp/data/pg\n1795454232\n41105\n\n")?.sharedMemory).toBeNull()
    expect(lockFile("13717\n/tmp/data/pg\n1795454232\n41105\n\n")?.socketDir).toBeNull()
    expect(lockFile("-13717\n/tmp/data/pg\n")).toBeNull()
  })
})

const table = (...rows: ReadonlyArray<string>) =>
  ["       key      shmid perms                  size  cpid  lpid nattch   uid   gid", ...rows].join("\n") + "\n"

describe("the processes attached to a server's segment (/proc/sysvipc/shm)", () => {
  it("are nattch of the row with the segment's id and key", () => {
    const shm = table(
      "   1433711          4   600   56  2195 13537      5   101   104",
      "   2163796         60   600   56 13717 13741      2   101   104"
    )
    expect(attachedIn(shm, { key: 2163796n, id: 60n })).toBe(2)
  })

  it("are none once the segment is gone, or when its id now belongs to another key", () => {
    expect(attachedIn(table("   1433711          4   600   56  2195 13537      5   101   104"), { key: 2163796n, id: 60n })).toBe(0)
    expect(attachedIn(table("   9999999         60   600   56  2195 13537      5   101   104"), { key: 2163796n, id: 60n })).toBe(0)
  })

  it("match a key past 2^31, which /proc prints signed and PostgreSQL writes unsigned", () => {
    // key_t -1294967296 is 3000000000 as a 32-bit unsigned, and 2^64 - 1294967296 as an unsigned long.
    const shm = table(" -1294967296         61   600   56 13717 13741      1   101   104")
    expect(attachedIn(shm, { key: 3000000000n, id: 61n })).toBe(1)
    expect(attachedIn(shm, { key: 2n ** 64n - 1294967296n, id: 61n })).toBe(1)
  })

  it("cannot be told from a table without the columns", () => {
    expect(attachedIn("nothing here\n", { key: 1n, id: 1n })).toBeNull()
  })
})

describe("processes", () => {
  it("a running one is running, a finished one gone; its program is its executable, not what its arguments name", async () => {
    const child = spawn("sh", ["-c", "read line", "node"], { stdio: ["pipe", "ignore", "ignore"] })
    const exited = new Promise((done) => child.on("exit", done))
    expect(stateOf(child.pid!)).toBe("running")
    expect(programOf(child.pid!)).not.toMatch(/node/)
    expect(programOf(process.pid)).toMatch(/^node(js)?$/)
    child.stdin.end("\n")
    await exited
    expect(stateOf(child.pid!)).toBe("gone")
  })
})
