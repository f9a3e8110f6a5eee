import { connect, createServer, type Server, type Socket } from "node:net"

/**
 * A statement as a client sent it on the wire: its text, and for the extended protocol the
 * parameter type OIDs of its Parse and the format codes and raw values of its Bind, exactly as sent
 * (the storage's driver sends them binary), so it can be run again with the same values.
 */
export interface LoggedStatement {
  readonly text: string
  readonly parameterTypes: ReadonlyArray<number>
  readonly formats: ReadonlyArray<number>
  readonly values: ReadonlyArray<Buffer | null>
}

/**
 * A TCP proxy in front of a PostgreSQL server that logs every statement its clients run (issue 31's
 * routing test): a simple Query's text, and for the extended protocol each Bind with the text of
 * the statement it binds (a named statement's Parse came earlier on the same connection). It only
 * reads what passes; the bytes go on unchanged.
 */
export interface StatementLog {
  readonly port: number
  /** The statements logged since the last `take`, oldest first; the log starts empty again. */
  readonly take: () => ReadonlyArray<LoggedStatement>
  readonly close: () => Promise<void>
}

const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104

/** Reads one connection's frontend messages as they arrive, in pieces of any size. */
const frontendReader = (logged: (statement: LoggedStatement) => void) => {
  let pending = Buffer.alloc(0)
  let started = false
  const parsed = new Map<string, { readonly text: string; readonly parameterTypes: ReadonlyArray<number> }>()
  const message = (type: number, body: Buffer) => {
    let offset = 0
    const cString = () => {
      const end = body.indexOf(0, offset)
      const text = body.toString("utf8", offset, end)
      offset = end + 1
      return text
    }
    const int16 = () => {
      const value = body.readInt16BE(offset)
      offset += 2
      return value
    }
    if (type === 0x51) {
      // Query
      logged({ text: cString(), parameterTypes: [], formats: [], values: [] })
    } else if (type === 0x50) {
      // Parse: name, text, parameter type OIDs
      const name = cString()
      const text = cString()
      const count = int16()
      const parameterTypes = Array.from({ length: count }, (_, i) => body.readUInt32BE(offset + 4 * i))
      parsed.set(name, { text, parameterTypes })
    } else if (type === 0x42) {
      // Bind: portal, statement, format codes, values, result format codes
      cString()
      const statement = parsed.get(cString())
      const formats = Array.from({ length: int16() }, int16)
      const values = Array.from({ length: int16() }, () => {
        const length = body.readInt32BE(offset)
        offset += 4
        if (length < 0) return null
        const value = Buffer.from(body.subarray(offset, offset + length))
        offset += length
        return value
      })
      if (statement !== undefined) logged({ ...statement, formats, values })
    } else if (type === 0x43 && body[0] === 0x53) {
      // Close of a statement: its name may be given to another
      parsed.delete(body.toString("utf8", 1, body.indexOf(0, 1)))
    }
  }
  return (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk])
    for (;;) {
      if (!started) {
        if (pending.length < 8) return
        const length = pending.readInt32BE(0)
        if (pending.length < length) return
        const code = pending.readInt32BE(4)
        started = code !== SSL_REQUEST && code !== GSSENC_REQUEST
        pending = pending.subarray(length)
        continue
      }
      if (pending.length < 5) return
      const length = pending.readInt32BE(1)
      if (pending.length < 1 + length) return
      message(pending[0]!, pending.subarray(5, 1 + length))
      pending = pending.subarray(1 + length)
    }
  }
}

export const startStatementLog = async (targetPort: number, targetHost = "127.0.0.1"): Promise<StatementLog> => {
  let log: Array<LoggedStatement> = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost)
    sockets.add(client).add(upstream)
    const read = frontendReader((statement) => log.push(statement))
    const drop = () => {
      sockets.delete(client)
      sockets.delete(upstream)
      client.destroy()
      upstream.destroy()
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    client.on("data", read)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    port,
    take: () => {
      const taken = log
      log = []
      return taken
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
