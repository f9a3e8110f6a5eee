import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { BIN } from "../http/cli.js"

/**
 * `dealstream serve` (the built CLI) under a parent that never reaps while the test runs (see
 * nonReapingParent.py): a process that exits there stays a zombie, as under a PID 1 that never
 * reaps. The host is in a process group of its own (its pid).
 */
export interface Adopted {
  /** The host's pid, which is also its process group. */
  readonly host: number
  readonly url: string
  readonly stderr: () => string
  /** Kills the host's process group, reaps every process the parent adopted, and waits for it to exit. */
  readonly finish: () => Promise<void>
}

const SCRIPT = resolve(import.meta.dirname, "nonReapingParent.py")

export const serveAdopted = async (args: ReadonlyArray<string>): Promise<Adopted> => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => key !== "PORT" && key !== "DATABASE_URL" && !key.startsWith("DEALSTREAM_"))
  )
  const parent = spawn("python3", [SCRIPT, process.execPath, BIN, "serve", "--host", "127.0.0.1", "--port", "0", ...args], {
    env,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  parent.stdout.on("data", (chunk) => (stdout += chunk))
  parent.stderr.on("data", (chunk) => (stderr += chunk))
  const exit = new Promise<void>((done) => parent.on("exit", () => done()))
  // No python3 on the machine: said at once, not after a timeout.
  let failed: Error | null = null
  parent.on("error", (error) => (failed = error))
  const finish = async () => {
    if (failed !== null || parent.exitCode !== null || parent.signalCode !== null) return
    parent.stdin.end()
    await until(() => parent.exitCode !== null || parent.signalCode !== null, "the non-reaping parent to reap and exit", 60_000).catch(
      (error) => {
        parent.kill("SIGKILL")
        throw error
      }
    )
    await exit
  }
  try {
    await until(() => /^\d+$/m.test(stdout) || failed !== null || parent.exitCode !== null, "the host's pid", 10_000)
    if (failed !== null) throw new Error(`cannot run python3 ${SCRIPT}: ${(failed as Error).message}`)
    const host = Number(/^(\d+)$/m.exec(stdout)![1])
    // A host that exits is a zombie here, never reaped: that is how its early exit shows.
    const exited = () => parent.exitCode !== null || [null, "Z", "X"].includes(stateOf(host))
    await until(() => /listening on http/.test(stderr) || exited(), "the host to listen", 60_000)
    const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1]
    if (url === undefined) throw new Error(`the host did not start: ${stderr}`)
    return { host, url, stderr: () => stderr, finish }
  } catch (error) {
    await finish()
    throw error
  }
}

/** A process's state letter in /proc (`S`, `R`, `Z` for a zombie, …), or null once it is gone. */
export const stateOf = (pid: number): string | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.charAt(stat.lastIndexOf(")") + 2)
  } catch {
    return null
  }
}

/** Waits for `condition` (checked every 50 ms), failing with `what` after `millis`. */
export const until = async (condition: () => boolean, what: string, millis: number) => {
  const deadline = Date.now() + millis
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
