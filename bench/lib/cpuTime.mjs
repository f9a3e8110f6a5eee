// CPU seconds (user + system) spent by processes between two snapshots, from /proc (Linux): where
// a measured window's time went, among the server under test, PostgreSQL and the bench itself.
// Elsewhere every figure is null and the caller says nothing about CPU.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"

const available = existsSync("/proc/self/stat")

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every common Linux). */
const ticks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/** A process's parent and CPU seconds so far; null once it has exited. */
const statOf = (pid) => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / ticks }
  } catch {
    return null
  }
}

/** A process's parent (PostgreSQL: a backend's parent is the postmaster); null when unknown. */
export const parentOf = (pid) => (available ? (statOf(pid)?.ppid ?? null) : null)

/** The postmaster of the server a postgres.js client is connected to (null when unknown). */
export const postmasterOf = async (sql) => {
  const [{ pid }] = await sql`SELECT pg_backend_pid() AS pid`
  return parentOf(pid)
}

/** CPU seconds of one process so far (null when it is gone or /proc is not there). */
export const cpuOf = (pid) => (available ? (statOf(pid)?.seconds ?? null) : null)

/**
 * CPU seconds of a process and each of its children so far, per pid (PostgreSQL: the postmaster
 * and its backends, checkpointer, WAL writer, autovacuum workers).
 */
export const treeCpu = (rootPid) => {
  if (!available || rootPid === null) return null
  const seconds = new Map()
  const root = statOf(rootPid)
  if (root === null) return null
  seconds.set(rootPid, root.seconds)
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    const stat = statOf(Number(name))
    if (stat !== null && stat.ppid === rootPid) seconds.set(Number(name), stat.seconds)
  }
  return seconds
}

/**
 * CPU seconds a tree spent between two `treeCpu` snapshots: a process started in between counts
 * whole; one that exited in between (a short-lived autovacuum worker) is not seen, so this is a floor.
 */
export const treeCpuSince = (before, after) => {
  if (before === null || after === null) return null
  let total = 0
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0)
  return total
}

/**
 * CPU seconds of this process's children that have exited and been waited for (cutime + cstime of
 * /proc/self/stat): the difference across a child's run is what that child spent, once it is gone.
 */
export const reapedChildrenCpu = () => {
  if (!available) return null
  const text = readFileSync("/proc/self/stat", "utf8")
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[13]) + Number(fields[14])) / ticks
}

/** `after - before`, or null when either is. */
const since = (before, after) => (before === null || after === null ? null : after - before)

/**
 * What a timed window costs in CPU seconds: the server (null for none), PostgreSQL's processes (a
 * floor, see treeCpuSince), the bench process and its children reaped meanwhile (a CLI it ran).
 * Call it at the window's start; the function it returns, at its end.
 */
export const cpuWindow = (serverPid, postmasterPid) => {
  const before = {
    server: serverPid === null ? null : cpuOf(serverPid),
    pg: treeCpu(postmasterPid),
    bench: process.cpuUsage(),
    children: reapedChildrenCpu()
  }
  return () => {
    const bench = process.cpuUsage(before.bench)
    return {
      server: since(before.server, serverPid === null ? null : cpuOf(serverPid)),
      pg: treeCpuSince(before.pg, treeCpu(postmasterPid)),
      bench: (bench.user + bench.system) / 1e6,
      children: since(before.children, reapedChildrenCpu())
    }
  }
}
