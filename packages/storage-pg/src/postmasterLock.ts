import { existsSync, readFileSync, readlinkSync, unlinkSync } from "node:fs"
import { basename, join } from "node:path"

/**
 * PostgreSQL's lock files, and what Linux (/proc) says about the processes they name: enough to
 * tell a server that runs from one that died without removing its lock.
 */

/** postmaster.pid as PostgreSQL writes it (pidfile.h): one value a line. */
export interface LockFile {
  readonly path: string
  /** The whole file, to remove it only while it still says the same thing. */
  readonly text: string
  /** Line 1: the postmaster. */
  readonly pid: number
  /** Line 2: the data directory it serves. */
  readonly dataDir: string
  /** Line 4. */
  readonly port: number | null
  /** Line 5: where its Unix socket and that socket's own lock file are; empty without sockets. */
  readonly socketDir: string | null
  /** Line 7: `key id` of the System V segment every process of the server attaches to. */
  readonly sharedMemory: SharedMemory | null
}

export interface SharedMemory {
  readonly key: bigint
  readonly id: bigint
}

// A negative pid is a single-user backend's (postgres --single): PostgreSQL's own to judge.
const positive = (text: string | undefined) => {
  const n = Number(text)
  return Number.isInteger(n) && n > 0 ? n : null
}

export const readLockFile = (dataDir: string): LockFile | null => {
  const path = join(dataDir, "postmaster.pid")
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch {
    return null
  }
  const lines = text.split("\n")
  const pid = positive(lines[0])
  if (pid === null) return null
  const segment = (lines[6] ?? "").trim().split(/\s+/)
  return {
    path,
    text,
    pid,
    dataDir: lines[1] ?? "",
    port: positive(lines[3]),
    socketDir: (lines[4] ?? "").trim() || null,
    sharedMemory:
      segment.length === 2 && segment.every((n) => /^\d+$/.test(n)) ? { key: BigInt(segment[0]!), id: BigInt(segment[1]!) } : null
  }
}

/** Whether /proc tells process states; elsewhere (macOS) only whether a pid exists is known. */
export const procfs = existsSync("/proc/self/stat")

const signalable = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user (the `postgres` user when the host runs as root).
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * "zombie": it has exited but its parent has not reaped it, which kill(pid, 0) cannot tell from a
 * running process. A postmaster killed together with its host is one until whoever adopted it
 * reaps it, and forever under a PID 1 that never reaps.
 */
export type ProcessState = "running" | "zombie" | "gone"

export const stateOf = (pid: number): ProcessState => {
  if (!procfs) return signalable(pid) ? "running" : "gone"
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ESRCH") return "gone"
    return signalable(pid) ? "running" : "gone"
  }
  // "pid (command) state …"; the command may hold spaces and parentheses.
  const state = stat.charAt(stat.lastIndexOf(")") + 2)
  return state === "Z" || state === "X" ? "zombie" : "running"
}

/** The command line (empty for a zombie), or null when it cannot be read. */
export const commandOf = (pid: number): string | null => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
  } catch {
    return null
  }
}

/**
 * The program a process runs: its executable's name, or where that cannot be read (another user's
 * process, without root) the first word of its command line. Not the whole command line, which
 * names other programs as arguments (a supervisor's `tini -- node bin.js`).
 */
export const programOf = (pid: number): string | null => {
  try {
    // An executable replaced while it runs (node upgraded under a running host) reads "… (deleted)".
    return basename(readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, ""))
  } catch {
    const command = commandOf(pid)
    return command === null ? null : basename(command.split(" ")[0]!)
  }
}

export const parentOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    return Number.isInteger(parent) ? parent : null
  } catch {
    return null
  }
}

// key_t is a C int: /proc prints it signed, PostgreSQL writes it as unsigned long.
const asKey = (n: bigint) => BigInt.asUintN(32, n)

/**
 * How many processes are attached to the segment (/proc/sysvipc/shm's nattch): a backend of a
 * dead postmaster stays attached until it exits, and a zombie is never attached. 0 when the
 * segment no longer exists; null when the table cannot be read.
 */
export const attachedTo = (segment: SharedMemory): number | null => {
  try {
    return attachedIn(readFileSync("/proc/sysvipc/shm", "utf8"), segment)
  } catch {
    return null
  }
}

/** `attachedTo` on the text of /proc/sysvipc/shm: a header line, then one segment a line. */
export const attachedIn = (table: string, segment: SharedMemory): number | null => {
  const [header = [], ...rows] = table
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
  const [key, id, attached] = [header.indexOf("key"), header.indexOf("shmid"), header.indexOf("nattch")]
  if (key < 0 || id < 0 || attached < 0) return null
  for (const row of rows) {
    // An id PostgreSQL no longer holds may have been given to another segment: the key tells.
    if (BigInt(row[id]!) === segment.id && asKey(BigInt(row[key]!)) === asKey(segment.key)) return Number(row[attached])
  }
  return 0
}

/**
 * Removes a lock file only if it still says `text`: a server that started meanwhile (another host
 * that saw the same stale file) has written its own, which must stay.
 */
export const removeIfUnchanged = (path: string, text: string): void => {
  try {
    if (readFileSync(path, "utf8") === text) unlinkSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
}

/**
 * The lock file next to the server's Unix socket (`.s.PGSQL.<port>.lock`) also names the
 * postmaster: a server started on the same port would find it and refuse just the same. Removed
 * when it names the postmaster of `file`.
 */
export const removeSocketLock = (file: LockFile): void => {
  if (file.socketDir === null || file.port === null) return
  const path = join(file.socketDir, `.s.PGSQL.${file.port}.lock`)
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch {
    return
  }
  if (positive(text.split("\n")[0]) === file.pid) removeIfUnchanged(path, text)
}
