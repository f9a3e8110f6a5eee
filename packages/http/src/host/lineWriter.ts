/**
 * Log lines gathered and written once per turn of the event loop. On Linux a write to stdout is
 * synchronous whether stdout is a file or a pipe, and one `write` per request line was 6% of the
 * memory host's CPU under GET load (the profile's `writeBuffer`; 0.4% since): a turn that answers
 * several requests now makes one system call. Lines keep their order; what is gathered is written
 * before the process exits normally, and a process killed outright loses at most the lines of the
 * turn it was in.
 */
export interface LineWriter {
  readonly write: (line: string) => void
  /** Writes what is gathered now (shutdown, tests). */
  readonly flush: () => void
}

/** Beyond this many gathered characters a line is written at once rather than at the turn's end. */
const FLUSH_AT = 64 * 1024

export const makeLineWriter = (sink: (text: string) => void): LineWriter => {
  let pending: Array<string> = []
  let size = 0
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    size = 0
    sink(text)
  }
  return {
    write: (line) => {
      pending.push(line)
      size += line.length
      if (size >= FLUSH_AT) return flush()
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    flush
  }
}

let stdoutWriter: LineWriter | undefined

/** The process's one writer to stdout, flushed on exit. */
export const stdoutLines = (): LineWriter => {
  if (stdoutWriter === undefined) {
    const writer = makeLineWriter((text) => process.stdout.write(text))
    process.on("exit", writer.flush)
    stdoutWriter = writer
  }
  return stdoutWriter
}
